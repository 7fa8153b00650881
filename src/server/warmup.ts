/**
 * Start-up warm-up of the draft-save path. A fresh process compiles the schema check and the analyser on first
 * use (V8 compiles lazily, then optimises what runs often), so without this the first saves after a start cost
 * several times a warm save. The server runs it once at start, off the request path, on a workflow made of
 * every registered node type's example, so each type's schema and rules have run before a user's first save.
 */
import { analyse } from "../analysis/index.js";
import { parseWeftObject } from "../dsl/load.js";
import { nodeCatalogue } from "../nodes/index.js";
import type { AppStore } from "../store/apps.js";
import { MemoryAuditStore } from "../store/memory/audit.js";
import type { ServerDeps } from "./context.js";

/** Enough passes for V8 to optimise the hot analyser functions; measured in bench/autosave.ts. */
const PASSES = 40;
/** Copies of each example in the warm-up workflow: the graph passes run on something of an app's size. */
const COPIES = 3;

/** A workflow with a start node and every top-level node type's example, chained; findings do not matter. */
export function warmupWorkflow(): Record<string, unknown> {
  const nodes: Array<Record<string, unknown>> = [
    {
      id: "start",
      type: "start",
      title: "Start",
      config: { variables: [{ variable: "query", label: "Query", type: "paragraph", required: true }] },
    },
  ];
  const edges: Array<Record<string, unknown>> = [];
  let tail = "start";
  for (let copy = 0; copy < COPIES; copy++) {
    for (const def of nodeCatalogue.all()) {
      if (def.type === "start" || def.example === undefined || /-start$/.test(def.type)) continue;
      const id = copy === 0 ? def.type : `${def.type}_${copy}`;
      nodes.push({ id, type: def.type, title: id, config: structuredClone(def.example) });
      edges.push({ source: tail, target: id });
      tail = id;
      // A container gets its body's start node, so the scope passes run too.
      if (def.container)
        nodes.push({ id: `${id}_start`, type: def.container.startType, title: "body", parentId: id, config: {} });
    }
  }
  return { weft: 1, name: "warm-up", mode: "workflow", nodes, edges };
}

/**
 * Run the draft-save path's pure work (schema check, analysis, serialisation) on the warm-up workflow. Never
 * throws: a warm-up that fails only leaves the first saves slower, and says why on stderr.
 */
export function warmDraftPath(passes = PASSES): void {
  try {
    const raw = warmupWorkflow();
    for (let i = 0; i < passes; i++) warmPass(raw);
  } catch (e) {
    warmupFailed(e);
  }
}

function warmPass(raw: Record<string, unknown>): void {
  const { workflow } = parseWeftObject(JSON.parse(JSON.stringify(raw)));
  JSON.stringify(analyse(workflow, nodeCatalogue).diagnostics);
}

function warmupFailed(e: unknown): void {
  process.stderr.write(`weft server: warm-up skipped (${e instanceof Error ? e.message : String(e)})\n`);
}

/** A warm-up running in the background; `stop` ends it after the step under way and resolves when it has. */
export interface BackgroundWarmup {
  readonly done: Promise<void>;
  stop(): Promise<void>;
}

/**
 * The server's dependencies with the warm-up's scratch app store, and an audit log of its own: the guard audits
 * the warm-up's draft saves like any other, and in the user's log they were entries nobody made (and, on
 * SQLite, a durable sync each on the event loop while the first requests were being served).
 */
export function scratchDeps(deps: ServerDeps, apps: AppStore): ServerDeps {
  return { ...deps, apps, stores: { ...deps.stores, audit: new MemoryAuditStore() } };
}

/** What the server's warm-up drives: its HTTP app, and a way to build the same app over scratch stores. */
export interface WarmupTarget {
  /** The server's own app: one GET /health builds its router, which Hono otherwise builds on the first request. */
  app: { request(path: string, init?: RequestInit): Response | Promise<Response> };
  /** An empty app store of the server's kind (src/store/scratch.ts scratchAppStore), closed when the warm-up ends. */
  scratchStore(): { apps: AppStore; close(): void };
  /** The same routes over that store, so the draft route's whole path runs without touching the user's data. */
  scratch(apps: AppStore): { request(path: string, init?: RequestInit): Response | Promise<Response> };
  /**
   * Resolves when the server handles no request. A pass waits for it: run between a request's own turns of the
   * loop (a /v1 run has about ten, one per durable commit), passes of 30–60 ms each made the first requests
   * after a start take 0.4–0.6 s instead of 20–60 ms, measured.
   */
  idle?(): Promise<void>;
}

/**
 * The server's warm-up, after listen: the router of the real app, then PASSES autosaves of the warm-up workflow
 * through the draft route of a scratch app (auth, body, schema check, analysis, store, answer), one per turn of
 * the event loop while no request is being handled (`target.idle`). `stop` (server close) ends it early.
 */
export function warmDraftPathInBackground(target: WarmupTarget, passes = PASSES): BackgroundWarmup {
  let stopped = false;
  let stopping: () => void = () => {};
  // A stop does not wait for the requests in flight to end (a long run's blocking request would hold it).
  const stop = new Promise<void>((r) => {
    stopping = r;
  });
  const step = async () => {
    await new Promise<void>((r) => setImmediate(r));
    if (target.idle) await Promise.race([target.idle(), stop]);
  };
  const done = (async () => {
    await step();
    if (stopped) return;
    await (await target.app.request("/health")).arrayBuffer();
    const store = target.scratchStore();
    try {
      await savesInto(store.apps, target, passes, () => stopped, step);
    } finally {
      store.close();
    }
  })().catch(warmupFailed);
  return {
    done,
    stop: () => {
      stopped = true;
      stopping();
      return done;
    },
  };
}

/** PASSES autosaves of the warm-up workflow through the scratch app's draft route, one per event-loop turn. */
async function savesInto(
  apps: AppStore,
  target: WarmupTarget,
  passes: number,
  stopped: () => boolean,
  step: () => Promise<void>,
): Promise<void> {
  const http = target.scratch(apps);
  const { key } = await apps.createKey("warm-up");
  const raw = warmupWorkflow();
  const { app } = await apps.createApp({ name: "warm-up", mode: "workflow" }, parseWeftObject(raw).workflow, "create");
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  for (let i = 0; i < passes && !stopped(); i++) {
    await step();
    if (stopped()) return;
    const res = await http.request(`/api/apps/${app.id}/draft`, {
      method: "PUT",
      headers,
      body: JSON.stringify({ workflow: raw }),
    });
    await res.arrayBuffer();
    if (res.status !== 200) throw new Error(`the warm-up save answered ${res.status}`);
  }
}
