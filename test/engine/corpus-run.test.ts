/**
 * Runs the real Dify DSL corpus (../shared/corpus/dify-dsl, read-only) end to end through the
 * importer and the engine. Files whose nodes are all deterministic run with the real sandbox, file
 * store and document extractor; files that also use LLM nodes run against the scripted replay model
 * server on 127.0.0.1 (generic answers; schema-shaped JSON when a JSON schema is requested). Files
 * with tools, HTTP requests, agents or knowledge retrieval need external services and are not run.
 *
 * Each run must end succeeded, or failed with a typed, explained error that is not an engine bug
 * (a forbidden sandbox module, a DSL that is wrong as written, code that chokes on the generic
 * model answer). The three langgenius fixtures must give what Dify's own tests expect.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importDify } from "../../src/dsl/dify/index.js";
import { type RunResult, runWorkflow } from "../../src/engine/run.js";
import type { ExecServices, FileValue } from "../../src/ir/services.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { createLlmService } from "../../src/llm/index.js";
import { createSandbox } from "../../src/sandbox/index.js";
import type { RunEvent } from "../../src/store/run-events.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { MemoryFileService } from "../../src/tools/files.js";
import { corpusPath } from "../support/corpus.js";
import { type RecordedRequest, type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

const ROOT = corpusPath("dify-dsl");
const FIXTURES = "langgenius__dify/api/tests/fixtures/workflow";

const DETERMINISTIC = new Set([
  "start",
  "end",
  "answer",
  "code",
  "template-transform",
  "if-else",
  "variable-aggregator",
  "list-operator",
  "assigner",
  "iteration",
  "iteration-start",
  "loop",
  "loop-start",
  "loop-end",
  "document-extractor",
]);
const MODEL_NODES = new Set(["llm", "question-classifier", "parameter-extractor"]);

/**
 * Failures that are explained by the workflow or the environment, never by the engine: code that
 * imports a module the sandbox forbids or lacks, code that raises or returns the wrong type (often
 * because it parses the generic model answer), a DSL that declares no variable for a parameter
 * its code needs, a model answer that does not fit the requested schema.
 */
const EXPLAINED_FAILURES = new Set([
  "sandbox.forbidden",
  "sandbox.egress_refused",
  "sandbox.runtime_error",
  "code.output_type",
  "code.output_missing",
  "code.output_extra",
  "llm.structured_output_invalid",
]);

type Kind = "deterministic" | "model" | "external";

interface CorpusFile {
  path: string;
  workflow: Workflow;
  kind: Kind;
}

function classify(wf: Workflow): Kind {
  const types = wf.nodes.map((n) => n.type);
  if (types.every((t) => DETERMINISTIC.has(t))) return "deterministic";
  if (types.every((t) => DETERMINISTIC.has(t) || MODEL_NODES.has(t))) return "model";
  return "external";
}

function manifestPaths(): string[] {
  return (
    readFileSync(join(ROOT, "MANIFEST.tsv"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.split("\t")[0]!)
      // The manifest lists 220 files; only those present in the shared copy can run.
      .filter((p) => existsSync(join(ROOT, p)))
  );
}

/** A value that satisfies a (simple) JSON schema, so structured-output LLM nodes get valid JSON. */
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

/** Generic model behaviour: schema-shaped JSON when a schema is sent, JSON when JSON is asked for, else text. */
function genericReply(req: RecordedRequest) {
  const schema = req.body?.response_format?.json_schema?.schema;
  if (schema) return reply.json(sample(schema));
  if (req.body?.response_format?.type === "json_object" || /\bjson\b/i.test(JSON.stringify(req.body?.messages ?? []))) {
    return reply.json({ category_id: "none", category_name: "none" });
  }
  return reply.text("ok");
}

async function synthInputs(wf: Workflow, files: MemoryFileService): Promise<Record<string, unknown>> {
  const start = wf.nodes.find((n) => n.type === "start");
  const txt: FileValue = await files.put(new TextEncoder().encode("Hello corpus.\nSecond line."), {
    filename: "sample.txt",
    mimeType: "text/plain",
    transferMethod: "local_file",
  });
  const inputs: Record<string, unknown> = {};
  for (const v of (start?.config.variables as Array<Record<string, any>> | undefined) ?? []) {
    const name = String(v.variable);
    switch (v.type) {
      case "number":
        inputs[name] = 3;
        break;
      case "checkbox":
        inputs[name] = true;
        break;
      case "select":
        inputs[name] = v.options?.[0] ?? "a";
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

let server: ReplayServer;
const sandbox = createSandbox();
let corpus: CorpusFile[] = [];

beforeAll(async () => {
  server = await startReplayServer();
  server.when(() => true, genericReply, { times: Infinity });
  corpus = manifestPaths().map((path) => {
    const { workflow } = importDify(readFileSync(join(ROOT, path), "utf8"));
    return { path, workflow, kind: classify(workflow) };
  });
});
afterAll(async () => {
  await server?.close();
});

async function runCorpusFile(
  f: CorpusFile,
  extra: { sys?: Record<string, unknown>; onEvent?: (e: RunEvent) => void } = {},
) {
  const files = new MemoryFileService();
  const services: Partial<ExecServices> = {
    sandbox,
    files,
    documents: new TextDocumentService(),
    llm:
      f.kind === "model"
        ? createLlmService({
            endpoints: {
              ep: {
                provider: "openai-compatible",
                baseURL: server.openaiBaseURL,
                apiKey: "k",
                supportsStructuredOutputs: true,
              },
            },
            default: "ep",
            retry: { maxRetries: 0 },
          })
        : undefined,
  };
  return runWorkflow(f.workflow, {
    inputs: await synthInputs(f.workflow, files),
    sys: f.workflow.mode === "advanced-chat" ? { query: "hello", ...extra.sys } : extra.sys,
    services,
    maxTimeMs: 60_000,
    onEvent: extra.onEvent,
  });
}

function expectExplained(path: string, r: RunResult) {
  if (r.status === "succeeded" || r.status === "partial-succeeded") return;
  expect(r.status, path).toBe("failed");
  expect(r.error, path).toBeDefined();
  expect(
    EXPLAINED_FAILURES.has(r.error!.code),
    `${path}: unexpected failure ${r.error!.code}: ${r.error!.message}`,
  ).toBe(true);
  expect(r.error!.nodeId, path).toBeTruthy();
  expect(r.error!.message.length, path).toBeGreaterThan(10);
}

describe("dify corpus", () => {
  it("imports every corpus file", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(160);
    const kinds = { deterministic: 0, model: 0, external: 0 };
    for (const f of corpus) kinds[f.kind]++;
    console.log(`corpus: ${corpus.length} files; ${JSON.stringify(kinds)}`);
    expect(kinds.deterministic).toBeGreaterThanOrEqual(13);
    expect(kinds.model).toBeGreaterThanOrEqual(41);
  });

  for (const kind of ["deterministic", "model"] as const) {
    it(`runs every ${kind} file to success or an explained failure`, async () => {
      const counts: Record<string, number> = {};
      const ranTypes: Record<string, number> = {};
      for (const f of corpus.filter((c) => c.kind === kind)) {
        const chunks: string[] = [];
        const r = await runCorpusFile(f, { onEvent: (e) => e.type === "text_chunk" && chunks.push(e.text) });
        expectExplained(f.path, r);
        if (f.workflow.mode === "advanced-chat" && r.status !== "failed") {
          // The streamed reply is the answer, and it says what the answer nodes rendered.
          expect(chunks.join(""), f.path).toBe(r.outputs.answer);
          const rendered = r.trace
            .filter((t) => t.nodeType === "answer" && t.status === "succeeded")
            .map((t) => String(t.outputs?.answer ?? ""));
          expect(String(r.outputs.answer).length, f.path).toBe(rendered.join("").length);
        }
        for (const t of r.trace) if (t.status === "succeeded") ranTypes[t.nodeType] = (ranTypes[t.nodeType] ?? 0) + 1;
        const key = r.status === "failed" ? `failed:${r.error!.code}` : r.status;
        counts[key] = (counts[key] ?? 0) + 1;
      }
      console.log(
        `${kind} corpus runs: ${JSON.stringify(counts)}; node executions that succeeded: ${JSON.stringify(ranTypes)}`,
      );
      // Regression floor: what ran cleanly when this test was written.
      expect(counts.succeeded ?? 0).toBeGreaterThanOrEqual(kind === "deterministic" ? 6 : 31);
    }, 300_000);
  }

  const fixture = (name: string) => {
    const f = corpus.find((c) => c.path === `${FIXTURES}/${name}`);
    if (!f) throw new Error(`fixture ${name} missing from the corpus`);
    return f;
  };

  it("increment_loop_with_break_condition_workflow gives {num: 5}", async () => {
    const r = await runCorpusFile(fixture("increment_loop_with_break_condition_workflow.yml"));
    expect(r.status).toBe("succeeded");
    expect(r.outputs).toEqual({ num: 5 });
  });

  it("loop_contains_answer streams the inner answers and ends with '1\\n2\\n1 + 2' (Dify's expected output)", async () => {
    const chunks: string[] = [];
    const r = await runCorpusFile(fixture("loop_contains_answer.yml"), {
      sys: { query: "1" },
      onEvent: (e) => e.type === "text_chunk" && chunks.push(e.text),
    });
    expect(r.status).toBe("succeeded");
    expect(r.outputs.answer).toBe("1\n2\n1 + 2");
    expect(chunks.join("")).toBe("1\n2\n1 + 2");
  });

  it("update-conversation-variable-in-iteration surfaces the conversation write in the answer", async () => {
    const query = "ensure conversation variable syncs";
    const r = await runCorpusFile(fixture("update-conversation-variable-in-iteration.yml"), { sys: { query } });
    expect(r.status).toBe("succeeded");
    expect(r.outputs.answer).toBe(query);
    expect(r.conversation.answer).toBe(query);
  });
});
