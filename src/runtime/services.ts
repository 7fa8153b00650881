import { dirname, resolve } from "node:path";
import type { ExecServices, KnowledgeService } from "../ir/services.js";
import type { KnowledgeConfig } from "../knowledge/config.js";
import type { KnowledgeBases } from "../knowledge/service.js";
import { hasAnyEndpoint, loadLlmConfig } from "../llm/config.js";
import { createSandbox } from "../sandbox/index.js";
import type { KnowledgeStore } from "../store/knowledge.js";
import { EMPTY_TOOLS_CONFIG, type ToolsConfig } from "../tools/configured/config.js";
import type { ToolProvider } from "../tools/configured/provider.js";
import { ConfiguredToolService } from "../tools/configured/service.js";
import { TextDocumentService } from "../tools/documents.js";
import type { ExtractLimits } from "../tools/extract/limits.js";
import { DirFileService } from "../tools/files.js";
import { GuardedHttpService } from "../tools/http.js";

export interface ServiceConfig {
  http: { allowPrivate: boolean; allowHosts: string[] };
  files: { dir: string };
  tools?: ToolsConfig;
  knowledge?: KnowledgeConfig;
  /** Limits of document extraction (weft.config.json `documents`). */
  documents?: Partial<ExtractLimits>;
  /** Where relative paths of the config (tool specs, workflow files) are read from. */
  baseDir?: string;
}

/** The services plus `close()`, which ends what configured tools started (MCP server processes, sessions). */
export type BuiltServices = ExecServices & { tools: ConfiguredToolService; close(): Promise<void> };

/**
 * Wire the real adapters into the engine's service contracts. The model layer is attached only when
 * an endpoint is configured; without one, LLM nodes fail with a NotConfiguredError that says how to
 * configure a model. Knowledge bases are served from `knowledge` (the database's store) when given. `oneShot`:
 * the process runs one workflow in the foreground and serves nothing else (`weft run`, `weft resume`).
 */
export async function buildServices(
  cfg: ServiceConfig,
  opts: { configPath?: string; knowledge?: KnowledgeStore; oneShot?: boolean } = {},
): Promise<BuiltServices> {
  const llmConfig = loadLlmConfig({ path: opts.configPath });
  const files = new DirFileService(resolve(cfg.files.dir));
  const now = () => new Date();
  const baseDir = cfg.baseDir ?? (opts.configPath ? dirname(resolve(opts.configPath)) : process.cwd());
  const http = new GuardedHttpService({ allowPrivate: cfg.http.allowPrivate, allowHosts: cfg.http.allowHosts });
  // The model SDKs, MCP's client and the OpenAPI reader load only when configured (start-up cost of `weft run`).
  const llm = hasAnyEndpoint(llmConfig) ? (await import("../llm/service.js")).createLlmService(llmConfig) : undefined;
  const documents = new TextDocumentService({ limits: cfg.documents });
  const toolsCfg = cfg.tools ?? EMPTY_TOOLS_CONFIG;
  // Workflow tools run on these very services (set below), so nested runs see the same tools and models.
  let services: BuiltServices | undefined;
  const mcp = Object.entries(toolsCfg.mcp);
  const openapi = Object.entries(toolsCfg.openapi);
  const { McpProvider } = mcp.length ? await import("../tools/configured/mcp.js") : { McpProvider: undefined };
  const { OpenApiProvider } = openapi.length
    ? await import("../tools/configured/openapi.js")
    : { OpenApiProvider: undefined };
  // Workflows served as tools bring the analyser and the DSL readers in with them.
  const workflowTools = Object.entries(toolsCfg.workflow);
  const { WorkflowToolProvider } = workflowTools.length
    ? await import("./workflow-tool.js")
    : { WorkflowToolProvider: undefined };
  const providers: ToolProvider[] = [
    ...mcp.map(([id, c]) => new McpProvider!(id, c, baseDir)),
    ...openapi.map(([id, c]) => new OpenApiProvider!(id, c, baseDir, http)),
    ...workflowTools.map(([id, c]) => new WorkflowToolProvider!(id, c, baseDir, () => services!)),
  ];
  // The built-in tools load with the first tool call or check (start-up: most workflows use none).
  const builtins = async () => new (await import("../tools/builtin/service.js")).LocalToolService({ files, now });
  const tools = new ConfiguredToolService(toolsCfg, files, builtins, providers);
  services = {
    now,
    random: Math.random,
    llm,
    // Code reaches the network, if at all, through the same address policy as the HTTP node.
    // A one-shot process (`weft run`) tries JavaScript guests on its own thread first; a server never does.
    sandbox: createSandbox({ egress: (host) => http.vet(host), inlineJavaScript: opts.oneShot === true }),
    http,
    files,
    documents,
    tools,
    knowledge: undefined,
    close: () => tools.close(),
  };
  if (opts.knowledge) attachKnowledge(services, opts.knowledge, cfg.knowledge);
  return services;
}

/**
 * Serve knowledge bases from `store` (the database's). Separate from building, so a command can check a
 * run's inputs before it opens (and so creates) the database.
 */
export function attachKnowledge(services: BuiltServices, store: KnowledgeStore, config?: KnowledgeConfig): void {
  services.knowledge = new StoreKnowledge(store, async () => {
    const { KnowledgeBases } = await import("../knowledge/service.js");
    return new KnowledgeBases(store, { documents: services.documents!, llm: services.llm, config });
  });
}

/**
 * Knowledge-retrieval served from a store, with the retrieval code (chunking, scoring, reranking: ~20 KB of
 * modules) loaded on the first retrieval: start-up cost of every `weft run`, most of whose workflows retrieve
 * nothing. `store` is the database's, as `KnowledgeBases.store` (what `servingDiagnostics` looks bases up in).
 */
export class StoreKnowledge implements KnowledgeService {
  private loaded?: Promise<KnowledgeBases>;
  constructor(
    readonly store: KnowledgeStore,
    private readonly load: () => Promise<KnowledgeBases>,
  ) {}

  /** The knowledge bases themselves (create, add, search...), loading their code if no retrieval has yet. */
  bases(): Promise<KnowledgeBases> {
    this.loaded ??= this.load();
    return this.loaded;
  }

  async retrieve(req: Parameters<KnowledgeService["retrieve"]>[0]) {
    return (await this.bases()).retrieve(req);
  }
}
