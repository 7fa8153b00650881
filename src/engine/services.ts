import { resolve } from "node:path";
import type { ExecServices } from "../ir/services.js";
import { createLlmService, hasAnyEndpoint, loadLlmConfig } from "../llm/index.js";
import { createSandbox } from "../sandbox/index.js";
import { LocalToolService } from "../tools/builtin/service.js";
import { TextDocumentService } from "../tools/documents.js";
import { DirFileService } from "../tools/files.js";
import { createHttpService } from "../tools/http.js";

export interface ServiceConfig {
  http: { allowPrivate: boolean; allowHosts: string[] };
  files: { dir: string };
}

/**
 * Wire the real adapters into the engine's service contracts. The model layer is attached only when
 * an endpoint is configured; without one, LLM nodes fail with a NotConfiguredError that says how to
 * configure a model.
 */
export async function buildServices(cfg: ServiceConfig, opts: { configPath?: string } = {}): Promise<ExecServices> {
  const llmConfig = loadLlmConfig({ path: opts.configPath });
  const files = new DirFileService(resolve(cfg.files.dir));
  const now = () => new Date();
  return {
    now,
    random: Math.random,
    llm: hasAnyEndpoint(llmConfig) ? createLlmService(llmConfig) : undefined,
    sandbox: createSandbox(),
    http: createHttpService({ allowPrivate: cfg.http.allowPrivate, allowHosts: cfg.http.allowHosts }),
    files,
    documents: new TextDocumentService(),
    tools: new LocalToolService({ files, now }),
  };
}
