/**
 * Apps for the service API tests and a server with everything they need: a scripted model on loopback, a
 * sandbox, a file store, and one app with its `app-…` key per test.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createParser } from "eventsource-parser";
import type { Workflow } from "../../src/ir/workflow.js";
import { createLlmService, parseLlmConfig } from "../../src/llm/index.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { LocalToolService } from "../../src/tools/builtin/service.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { DirFileService } from "../../src/tools/files.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { buildWorkflow, tpl } from "./build.js";
import { type ReplayServer, startReplayServer } from "./replay-server.js";

const model = { provider: "openai", name: "replay", mode: "chat", completion_params: {} };
export const llmNode = (id: string, prompt: string, extra: Record<string, unknown> = {}) => ({
  id,
  type: "llm",
  model,
  prompt_template: [{ role: "user", text: prompt }],
  context: { enabled: false, variable_selector: [] },
  vision: { enabled: false },
  ...extra,
});

/**
 * A branching workflow with an iteration: the words of `text`; `mode` "each" upper-cases every word in an
 * iteration, anything else counts them; an LLM comments on the result, streamed to the End node's `comment`.
 */
export function branchingWorkflow(): Workflow {
  return buildWorkflow({
    nodes: [
      {
        id: "start",
        type: "start",
        variables: [
          { variable: "text", label: "Text", type: "paragraph", required: true },
          { variable: "mode", label: "Mode", type: "select", options: ["each", "count"], required: true },
        ],
      },
      {
        id: "words",
        type: "code",
        title: "Split words",
        code_language: "javascript",
        code: "function main({ text }) { return { list: text.split(/\\s+/).filter(Boolean) } }",
        variables: [{ variable: "text", value_selector: ["start", "text"] }],
        outputs: { list: { type: "array[string]" } },
      },
      {
        id: "branch",
        type: "if-else",
        title: "Each word?",
        cases: [
          {
            case_id: "true",
            logical_operator: "and",
            conditions: [{ variable_selector: ["start", "mode"], comparison_operator: "is", value: "each" }],
          },
        ],
      },
      {
        id: "it",
        type: "iteration",
        title: "Every word",
        iterator_selector: ["words", "list"],
        output_selector: ["up", "output"],
        start_node_id: "it_start",
      },
      { id: "it_start", type: "iteration-start", parentId: "it" },
      { ...tpl("up", "{{ w | upper }}", { w: ["it", "item"] }), parentId: "it", title: "Upper" },
      tpl("joined", "{{ ws | join(' ') }}", { ws: ["it", "output"] }),
      tpl("counted", "{{ ws | length }} words", { ws: ["words", "list"] }),
      {
        id: "agg",
        type: "variable-aggregator",
        output_type: "string",
        variables: [
          ["joined", "output"],
          ["counted", "output"],
        ],
      },
      llmNode("comment", "Comment on: {{#agg.output#}}"),
      {
        id: "end",
        type: "end",
        outputs: [
          { variable: "result", value_selector: ["agg", "output"] },
          { variable: "comment", value_selector: ["comment", "text"] },
        ],
      },
    ],
    edges: [
      ["start", "words"],
      ["words", "branch"],
      ["branch", "true", "it"],
      ["branch", "false", "counted"],
      ["it_start", "up"],
      ["it", "joined"],
      ["joined", "agg"],
      ["counted", "agg"],
      ["agg", "comment"],
      ["comment", "end"],
    ],
  });
}

/** A chat app: the model answers the query; the reply also shows the turn number from a conversation variable. */
export function chatWorkflow(): Workflow {
  return buildWorkflow({
    mode: "advanced-chat",
    conversation_variables: [
      { name: "turns", value_type: "number", value: 0 } as Workflow["conversation_variables"][number],
    ],
    nodes: [
      {
        id: "start",
        type: "start",
        variables: [{ variable: "name", label: "Name", type: "text-input", required: false }],
      },
      {
        id: "count",
        type: "assigner",
        version: "2",
        items: [{ variable_selector: ["conversation", "turns"], operation: "+=", input_type: "constant", value: 1 }],
      },
      llmNode("reply", "{{#sys.query#}}"),
      { id: "answer", type: "answer", answer: "{{#reply.text#}} (turn {{#conversation.turns#}}, {{#start.name#}})" },
    ],
    edges: [
      ["start", "count"],
      ["count", "reply"],
      ["reply", "answer"],
    ],
  });
}

/** A document input read back: its name, size and text (file upload used as an input). */
export function fileWorkflow(): Workflow {
  return buildWorkflow({
    nodes: [
      {
        id: "start",
        type: "start",
        variables: [
          { variable: "doc", label: "Document", type: "file", required: true, allowed_file_types: ["document"] },
        ],
      },
      { id: "read", type: "document-extractor", variable_selector: ["start", "doc"], is_array_file: false },
      tpl("about", "{{ name }} ({{ size }} bytes): {{ text }}", {
        name: ["start", "doc", "filename"],
        size: ["start", "doc", "size"],
        text: ["read", "text"],
      }),
      { id: "end", type: "end", outputs: [{ variable: "about", value_selector: ["about", "output"] }] },
    ],
    edges: [
      ["start", "read"],
      ["read", "about"],
      ["about", "end"],
    ],
  });
}

/** One LLM call the test keeps waiting (for stop). */
export function slowWorkflow(): Workflow {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [] },
      llmNode("slow", "take your time"),
      { id: "end", type: "end", outputs: [{ variable: "text", value_selector: ["slow", "text"] }] },
    ],
    edges: [
      ["start", "slow"],
      ["slow", "end"],
    ],
  });
}

export interface V1Server extends TestServer {
  llm: ReplayServer;
  /** A new app of this workflow and its `app-…` key. */
  app(name: string, wf: Workflow): Promise<{ appId: string; key: string }>;
  /** Base URL of the service API, as Dify clients take it. */
  v1: string;
}

export async function startV1Server(): Promise<V1Server> {
  const llm = await startReplayServer();
  const llmConfig = parseLlmConfig({
    endpoints: { ep: { provider: "openai-compatible", baseURL: llm.openaiBaseURL, model: "replay" } },
    default: "ep",
    retry: { maxRetries: 0 },
  });
  const filesDir = mkdtempSync(join(tmpdir(), "weft-v1-files-"));
  const files = new DirFileService(filesDir);
  const s = await startTestServer({
    services: {
      sandbox: createSandbox(),
      llm: createLlmService(llmConfig),
      files,
      // Built-in tools (md_exporter makes files the service API links to).
      tools: new LocalToolService({ files }),
      documents: new TextDocumentService(),
    },
    llmConfig,
  });
  return {
    ...s,
    llm,
    v1: `${s.url}/v1`,
    app: async (name, wf) => {
      const { app } = await s.deps.apps.createApp({ name, mode: wf.mode }, wf, "create");
      const { key } = await s.deps.stores.service.createAppKey(app.id);
      return { appId: app.id, key };
    },
    stop: async () => {
      await s.stop();
      await llm.close();
      rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

/** The `data:` events of a Dify stream body (fetch's or axios's), in order, until the server ends it. */
export async function difyEvents(body: AsyncIterable<Uint8Array>): Promise<Array<Record<string, any>>> {
  const out: Array<Record<string, any>> = [];
  const parser = createParser({ onEvent: (e) => out.push(JSON.parse(e.data)) });
  const decoder = new TextDecoder();
  for await (const chunk of body) parser.feed(decoder.decode(chunk, { stream: true }));
  return out;
}
