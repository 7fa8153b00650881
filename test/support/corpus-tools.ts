/**
 * The configuration a user migrating the corpus apps would write, pointed at test stand-ins: what
 * `weft tools check` reports unserved is mapped (tools.map) onto the replay tools' MCP server (search onto
 * web_search, readers onto read_page, speech and images onto their tools, anything else onto the
 * argument-echoing `replay`), Dify custom API tools onto the test OpenAPI server, workflow tools onto a
 * workflow file, and every knowledge base a knowledge-retrieval node names is created from real documents.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { importDify } from "../../src/dsl/dify/index.js";
import type { KnowledgeBases } from "../../src/knowledge/service.js";
import { LocalToolService } from "../../src/tools/builtin/service.js";
import { toolUses } from "../../src/tools/configured/check.js";
import { shortProvider } from "../../src/tools/configured/snippet.js";
import { extensionOf, mimeForExtension } from "../../src/tools/mime.js";
import { corpusPath } from "./corpus.js";
import { type OpenApiServer, replayToolsStdio, startOpenApiServer } from "./replay-tools.js";

/** Dify parameter names the stand-in calls differently (tools.map `rename`). */
const RENAMES: Record<string, Record<string, string>> = {
  "edgetts/text_to_speech": { input_text: "text" },
};

/** Which replay tool stands in for a Dify tool, by what its name says it does. */
function standIn(provider: string, tool: string): string {
  const t = `${provider}/${tool}`.toLowerCase();
  if (/tts|text_to_speech|edgetts/.test(t)) return "text_to_speech";
  if (/asr|speech_to_text/.test(t)) return "speech_to_text";
  if (/text2image|dalle|image_gen|text_to_image/.test(t)) return "text_to_image";
  if (/search|wikipedia/.test(t)) return "web_search";
  if (/reader|scrape/.test(t)) return "read_page";
  return "replay";
}

export interface CorpusTools {
  /** The `tools`, `http` additions to weft.config.json. */
  config: Record<string, unknown>;
  knowledgeIds: string[];
  openapi: OpenApiServer;
}

export async function corpusToolConfig(dir: string, appFiles: string[]): Promise<CorpusTools> {
  // Its own loopback address, so allowing it (http.allowHosts) allows no corpus app's own private hosts.
  const openapi = await startOpenApiServer({ host: "127.0.0.2" });
  const local = new LocalToolService({});
  const map: Record<string, unknown> = {};
  const openapiCfg: Record<string, unknown> = {};
  const workflowCfg: Record<string, unknown> = {};
  const knowledgeIds = new Set<string>();
  const workflowFile = join(dir, "tool-workflow.json");
  writeFileSync(workflowFile, JSON.stringify(echoWorkflow()));
  for (const file of appFiles) {
    let wf: ReturnType<typeof importDify>["workflow"];
    try {
      wf = importDify(readFileSync(file, "utf8")).workflow;
    } catch {
      continue;
    }
    for (const n of wf.nodes) {
      if (n.type === "knowledge-retrieval")
        for (const id of (n.config as { dataset_ids?: unknown[] }).dataset_ids ?? []) knowledgeIds.add(String(id));
    }
    for (const u of toolUses(wf)) {
      if (local.serves(u.providerId, u.toolName) || !u.providerId) continue;
      if (u.providerType === "api") openapiCfg[u.providerId] = { spec: openapi.specUrl };
      else if (u.providerType === "workflow") workflowCfg[u.providerId] = { file: workflowFile, name: u.toolName };
      else {
        const from = `${shortProvider(u.providerId)}/${u.toolName}`;
        const to = `replay/${standIn(u.providerId, u.toolName)}`;
        map[from] = RENAMES[from] ? { tool: to, rename: RENAMES[from] } : to;
      }
    }
  }
  return {
    config: {
      http: { allowPrivate: false, allowHosts: ["127.0.0.2"] },
      tools: { mcp: { replay: replayToolsStdio() }, openapi: openapiCfg, workflow: workflowCfg, map },
    },
    knowledgeIds: [...knowledgeIds],
    openapi,
  };
}

/** A workflow tool that takes any arguments and answers a fixed text (Dify's workflow tools answer their outputs). */
function echoWorkflow() {
  return {
    name: "tool workflow",
    mode: "workflow",
    nodes: [
      { id: "start", type: "start", title: "Start", config: { variables: [] } },
      {
        id: "t",
        type: "template-transform",
        title: "T",
        config: { template: "answer of the workflow tool", variables: [] },
      },
      {
        id: "end",
        type: "end",
        title: "End",
        config: { outputs: [{ variable: "result", value_selector: ["t", "output"] }] },
      },
    ],
    edges: [
      { source: "start", target: "t" },
      { source: "t", target: "end" },
    ],
    conversation_variables: [],
    environment_variables: [],
  };
}

const KB_DOCS = ["residential-lease-agreement.docx", "the-three-little-pigs.pdf", "teaching_plan_history.md"];

/** Every named knowledge base, created (as `weft kb create --id` and `weft kb add` would) from real documents. */
export async function createCorpusKnowledge(kb: KnowledgeBases, ids: string[]): Promise<void> {
  for (const id of ids) {
    if (await kb.store.getBase(id)) continue;
    await kb.create({ id, name: `corpus ${id}` });
    for (const name of KB_DOCS) {
      const extension = extensionOf(name);
      const bytes = new Uint8Array(readFileSync(corpusPath("chat2workflow", "case_files", name)));
      await kb.addFile(id, {
        name,
        bytes,
        extension,
        mimeType: mimeForExtension(extension) ?? "application/octet-stream",
      });
    }
  }
}
