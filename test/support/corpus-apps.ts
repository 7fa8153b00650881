/**
 * Runs the real Dify apps of ../shared/corpus/dify-dsl the way a user would with `weft run`: the file is
 * imported and analysed (errors refuse the run), inputs are synthesised from the start node's declarations,
 * and the run uses the services of a weft.config.json (the standard wiring, buildServices) that points at the
 * loopback replay model. `setup` may add to that config (tools, knowledge bases) before services are built.
 * Each app ends `succeeded` / `partial-succeeded`, or with the typed cause of its failure.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { analyse, runGate } from "../../src/analysis/index.js";
import { loadWeftConfig } from "../../src/cli/config.js";
import { importDify } from "../../src/dsl/dify/index.js";
import { runWorkflow } from "../../src/engine/run.js";
import type { ExecServices, FileValue } from "../../src/ir/services.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { type BuiltServices, buildServices } from "../../src/runtime/services.js";
import { openStores } from "../../src/store/open.js";
import { installReplayModel } from "./chat2workflow-replay.js";
import { corpusPath } from "./corpus.js";
import { type RecordedRequest, type ReplayServer, reply, startReplayServer } from "./replay-server.js";

export const CORPUS_ROOT = corpusPath("dify-dsl");

export interface AppOutcome {
  path: string;
  mode: string;
  /** "succeeded", "partial-succeeded", "failed:<code>" or "refused:<analyser code>". */
  outcome: string;
  message?: string;
  nodeId?: string;
}

export function corpusAppPaths(): string[] {
  return readFileSync(join(CORPUS_ROOT, "MANIFEST.tsv"), "utf8")
    .trim()
    .split("\n")
    .slice(1)
    .map((l) => l.split("\t")[0]!)
    .filter((p) => existsSync(join(CORPUS_ROOT, p)));
}

/** A value that satisfies a (simple) JSON schema, for structured-output LLM nodes. */
function sample(schema: any): unknown {
  if (!schema || typeof schema !== "object") return "ok";
  if (Array.isArray(schema.enum) && schema.enum.length) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === "object" || schema.properties) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(schema.properties ?? {})) out[k] = sample(v);
    return out;
  }
  if (type === "array") return [sample(schema.items)];
  if (type === "number" || type === "integer") return 1;
  if (type === "boolean") return true;
  return "ok";
}

async function synthInputs(wf: Workflow, files: NonNullable<ExecServices["files"]>): Promise<Record<string, unknown>> {
  const start = wf.nodes.find((n) => n.type === "start" && !n.parentId);
  const txt: FileValue = await files.put(new TextEncoder().encode("Hello corpus.\nSecond line of the sample."), {
    filename: "sample.txt",
    mimeType: "text/plain",
  });
  const inputs: Record<string, unknown> = {};
  for (const v of (start?.config.variables as Array<Record<string, any>> | undefined) ?? []) {
    const name = String(v.variable);
    const opts = Array.isArray(v.options) ? v.options : [];
    switch (v.type) {
      case "number":
        inputs[name] = 3;
        break;
      case "checkbox":
        inputs[name] = true;
        break;
      case "select":
        inputs[name] = opts[0] ?? "a";
        break;
      case "file":
        inputs[name] = txt;
        break;
      case "file-list":
        inputs[name] = [txt];
        break;
      case "json_object":
        inputs[name] = {};
        break;
      default: {
        const max = typeof v.max_length === "number" && v.max_length > 0 ? v.max_length : 48;
        inputs[name] = "sample input text".slice(0, max);
      }
    }
  }
  return inputs;
}

export interface CorpusHarness {
  server: ReplayServer;
  dir: string;
  configPath: string;
  services: BuiltServices;
  close(): Promise<void>;
}

/** The replay model (structured output answered from the schema), a config pointing at it, services built from it. */
export async function startCorpusHarness(
  setup: (cfg: Record<string, unknown>, dir: string) => Promise<void> | void = () => {},
): Promise<CorpusHarness> {
  const server = await startReplayServer();
  server.when(
    (r: RecordedRequest) => r.api === "openai-chat" && !!r.body?.response_format?.json_schema?.schema,
    (r) => reply.json(sample(r.body.response_format.json_schema.schema)),
    { times: Number.POSITIVE_INFINITY },
  );
  installReplayModel(server);
  const dir = mkdtempSync(join(tmpdir(), "weft-corpus-apps-"));
  const cfg: Record<string, unknown> = {
    llm: {
      endpoints: {
        replay: { provider: "openai-compatible", baseURL: server.openaiBaseURL, supportsStructuredOutputs: true },
      },
      default: "replay",
      retry: { maxRetries: 0 },
    },
    files: { dir: join(dir, "files") },
    db: join(dir, "weft.db"),
  };
  await setup(cfg, dir);
  const configPath = join(dir, "weft.config.json");
  writeFileSync(configPath, JSON.stringify(cfg, null, 2));
  // As `weft run --config` wires it: the whole config (tools, knowledge) and the database's knowledge store.
  const loaded = loadWeftConfig(configPath);
  const stores = await openStores(loaded.db);
  const services = await buildServices(loaded, { configPath, knowledge: stores.knowledge });
  return {
    server,
    dir,
    configPath,
    services,
    close: async () => {
      await services.close();
      await stores.close();
      await server.close();
    },
  };
}

export interface RunAppOptions {
  /** Run despite the analyser errors Dify would still run (as `weft run --allow-warnings`). */
  allowWarnings?: boolean;
  maxTimeMs?: number;
}

export async function runCorpusApp(h: CorpusHarness, path: string, o: RunAppOptions = {}): Promise<AppOutcome> {
  const { workflow } = importDify(readFileSync(join(CORPUS_ROOT, path), "utf8"));
  const base = { path, mode: workflow.mode };
  // As weft run: errors refuse the run; with allowWarnings, only those Dify would still run are let through.
  const errors = runGate(analyse(workflow, nodeCatalogue).diagnostics, { allowWarnings: o.allowWarnings }).blocking;
  if (errors.length > 0) {
    return { ...base, outcome: `refused:${errors[0]!.code}`, message: errors[0]!.message, nodeId: errors[0]!.nodeId };
  }
  const r = await runWorkflow(workflow, {
    inputs: await synthInputs(workflow, h.services.files!),
    sys: workflow.mode === "advanced-chat" ? { query: "hello, what can you do?" } : undefined,
    services: h.services,
    maxTimeMs: o.maxTimeMs ?? 60_000,
  });
  if (r.status !== "failed") return { ...base, outcome: r.status };
  return { ...base, outcome: `failed:${r.error?.code}`, message: r.error?.message, nodeId: r.error?.nodeId };
}

/** Outcome → count, and the files per failure cause. */
export function summarise(outcomes: AppOutcome[]): { counts: Record<string, number>; ran: number; total: number } {
  const counts: Record<string, number> = {};
  for (const o of outcomes) counts[o.outcome] = (counts[o.outcome] ?? 0) + 1;
  const ran = outcomes.filter((o) => o.outcome === "succeeded" || o.outcome === "partial-succeeded").length;
  return { counts, ran, total: outcomes.length };
}
