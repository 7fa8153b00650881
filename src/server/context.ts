import type { Context } from "hono";
import type { Editing } from "../authoring/editing.js";
import type { ModelChoice } from "../dsl/compact/convert.js";
import type { NodeTypes } from "../ir/registry.js";
import type { ExecServices, LlmService, ModelRef } from "../ir/services.js";
import type { KnowledgeBases } from "../knowledge/service.js";
import type { LlmConfig } from "../llm/index.js";
import type { PriceTable } from "../observability/cost.js";
import type { AppEnv } from "../secrets/app-env.js";
import type { AppRecord, AppStore } from "../store/apps.js";
import type { Stores } from "../store/open.js";
import type { RunStore } from "../store/runs.js";
import { MAX_JSON_DEPTH, tooDeepAt } from "../util/json-depth.js";
import { ApiError } from "./errors.js";
import type { FileSigner } from "./file-signing.js";
import type { RunHub } from "./hub.js";
import type { PausedRuns } from "./human-input.js";

/** What every route needs: the stores, the run hub and the model layer (absent when none is configured). */
export interface ServerDeps {
  /** The open database; `apps` and `runs` are its stores. */
  stores: Stores;
  apps: AppStore;
  /** Proposals, apply/reject/undo and the agent's conversation memory. */
  editing: Editing;
  runs: RunStore;
  /** Apps' environment variables and secrets (sealed with the server's key). */
  env: AppEnv;
  hub: RunHub;
  /** Paused runs: answers and timeouts of their forms continue them. */
  paused: PausedRuns;
  services: Partial<ExecServices>;
  /** The node types drafts are analysed against and runs execute with (`ServerOptions.nodeTypes`). */
  nodeTypes: NodeTypes;
  /** The database's knowledge bases (also `services.knowledge` unless the caller brought its own). */
  knowledge: KnowledgeBases;
  llmConfig?: LlmConfig;
  /** The agent's model; the endpoint routing decides where it goes. */
  agentModel: ModelRef;
  agentLlm?: LlmService;
  /** The model nodes added by the agent get (the configured default); none when the config names none. */
  nodeModel?: ModelChoice;
  agentMaxIterations?: number;
  /** Signs and checks the expiring file URLs of the service API (`/files/:id/file-preview`). */
  fileSigner: FileSigner;
  /** Model prices (weft.config.json `observability.prices`): run and app usage carry a cost. */
  prices?: PriceTable;
}

/** Parse the body as JSON, answering 400 (not 500) for malformed input. */
export async function readJson(c: Context): Promise<Record<string, unknown>> {
  const text = await c.req.text();
  if (text.trim() === "") return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new ApiError(400, "request.invalid_json", `the request body is not valid JSON: ${(e as Error).message}`);
  }
  if (v === null || typeof v !== "object" || Array.isArray(v))
    throw new ApiError(400, "request.not_object", "the request body must be a JSON object");
  const deep = tooDeepAt(v);
  if (deep !== undefined) {
    const shown = deep.length > 120 ? `${deep.slice(0, 120)}…` : deep;
    throw new ApiError(
      400,
      "request.too_deep",
      `the request body nests deeper than ${MAX_JSON_DEPTH} levels (at ${shown})`,
      undefined,
      {
        limit: MAX_JSON_DEPTH,
      },
    );
  }
  return v as Record<string, unknown>;
}

export async function requireApp(deps: ServerDeps, id: string): Promise<AppRecord> {
  const app = await deps.apps.getApp(id);
  if (!app) throw new ApiError(404, "app.not_found", `no app with id ${id}`);
  return app;
}
