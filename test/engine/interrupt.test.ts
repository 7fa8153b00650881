// `RunOptions.stop`: a run stopped between nodes ends `interrupted` with every finished node committed and
// nothing failed committed, so resuming it runs each node exactly once more at most — never a finished one.

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { resumeRun, runWorkflow } from "../../src/engine/run.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { MemoryRunStore } from "../../src/store/memory/runs.js";
import { buildWorkflow } from "../support/build.js";

/** A node that waits for the test to open its gate, then succeeds or (config `fail`) throws. */
const gates = new Map<string, () => void>();
const started: string[] = [];
const entered = new Map<string, () => void>();
function whenStarted(key: string): Promise<void> {
  return new Promise((r) => entered.set(key, r));
}
const nodeTypes = nodeCatalogue.with({
  type: "test-gate",
  label: "gate",
  category: "transform",
  purpose: "test only",
  configSchema: z.object({ fail: z.boolean().default(false), wait: z.boolean().default(true) }).loose(),
  outputs: () => [{ name: "v", type: "string" }],
  inputs: () => [],
  ports: () => ["source"],
  async execute(ctx) {
    const item = ctx.read(["it", "item"]);
    const key = item.found ? `${ctx.node.id}#${String(item.value)}` : ctx.node.id;
    started.push(key);
    entered.get(key)?.();
    if (ctx.config.wait) await new Promise<void>((r) => gates.set(key, r));
    if (ctx.config.fail) throw new Error(`${key} failed`);
    return { outputs: { v: key } };
  },
});

const gate = (id: string, extra: Record<string, unknown> = {}) => ({ id, type: "test-gate", ...extra });
const end = (from: string) => ({ id: "end", type: "end", outputs: [{ variable: "out", value_selector: [from, "v"] }] });

describe("interrupting a run between nodes (RunOptions.stop)", () => {
  it("the running node finishes and commits, no new node starts, the run is interrupted; resume runs the rest once", async () => {
    started.length = 0;
    const wf = buildWorkflow({
      nodes: [{ id: "start", type: "start", variables: [] }, gate("a"), gate("b", { wait: false }), end("b")],
      edges: [
        ["start", "a"],
        ["a", "b"],
        ["b", "end"],
      ],
    });
    const store = new MemoryRunStore();
    const stop = new AbortController();
    const aStarted = whenStarted("a");
    const running = runWorkflow(wf, { nodeTypes, store, stop: stop.signal });
    await aStarted;
    stop.abort(new Error("worker w1 is shutting down"));
    gates.get("a")!();
    const r = await running;
    expect(r.status).toBe("interrupted");
    expect(r.error).toMatchObject({
      code: "run.interrupted",
      message: expect.stringContaining("worker w1 is shutting down"),
    });
    expect([...(await store.committed(r.runId)).keys()]).toEqual(["start", "a"]);
    expect((await store.getRun(r.runId))?.status).toBe("interrupted");

    const resumed = await resumeRun(r.runId, { nodeTypes, store });
    expect([resumed.status, resumed.outputs]).toEqual(["succeeded", { out: "b" }]);
    expect(started).toEqual(["a", "b"]);
  });

  it("a node that fails while the run is stopping is not given its error strategy: it runs again on resume", async () => {
    started.length = 0;
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        gate("a", {
          fail: true,
          error_strategy: "default-value",
          default_value: [{ key: "v", type: "string", value: "fallback" }],
        }),
        end("a"),
      ],
      edges: [
        ["start", "a"],
        ["a", "end"],
      ],
    });
    const store = new MemoryRunStore();
    const stop = new AbortController();
    const aStarted = whenStarted("a");
    const running = runWorkflow(wf, { nodeTypes, store, stop: stop.signal });
    await aStarted;
    stop.abort();
    gates.get("a")!();
    const r = await running;
    expect(r.status).toBe("interrupted");
    expect((await store.committed(r.runId)).has("a")).toBe(false);
    // On resume the node runs again, and this time its error strategy applies as usual.
    const again = whenStarted("a");
    const resuming = resumeRun(r.runId, { nodeTypes, store });
    await again;
    gates.get("a")!();
    expect(await resuming).toMatchObject({ status: "partial-succeeded", outputs: { out: "fallback" } });
  });

  it("an iteration that keeps going on item errors is not committed with the interrupted items as failures", async () => {
    started.length = 0;
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [{ variable: "items", type: "json_object" }] },
        {
          id: "it",
          type: "iteration",
          iterator_selector: ["start", "items", "list"],
          output_selector: ["g", "v"],
          start_node_id: "it_start",
          error_handle_mode: "continue-on-error",
        },
        { id: "it_start", type: "iteration-start", parentId: "it" },
        { ...gate("g"), parentId: "it" },
        { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["it", "output"] }] },
      ],
      edges: [
        ["start", "it"],
        ["it_start", "g"],
        ["it", "end"],
      ],
    });
    const store = new MemoryRunStore();
    const stop = new AbortController();
    const first = whenStarted("g#x");
    const running = runWorkflow(wf, {
      nodeTypes,
      store,
      stop: stop.signal,
      inputs: { items: { list: ["x", "y", "z"] } },
    });
    await first;
    stop.abort();
    gates.get("g#x")!();
    const r = await running;
    expect(r.status).toBe("interrupted");
    const committed = await store.committed(r.runId);
    expect(committed.has("it")).toBe(false);
    expect(committed.has("it[0]/g")).toBe(true);

    const resuming = resumeRun(r.runId, { nodeTypes, store });
    for (const k of ["g#y", "g#z"]) {
      await new Promise<void>((res) => {
        const t = setInterval(() => {
          if (!gates.has(k)) return;
          clearInterval(t);
          res();
        }, 5);
      });
      gates.get(k)!();
    }
    expect(await resuming).toMatchObject({ status: "succeeded", outputs: { out: ["g#x", "g#y", "g#z"] } });
    expect(started).toEqual(["g#x", "g#y", "g#z"]);
  });
});
