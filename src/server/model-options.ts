/**
 * The models the inspector offers: what weft.config.json (or the environment) serves by name, each under the
 * provider name a node uses to reach it; and the warning on a node whose model is none of them.
 */
import type { Diagnostic } from "../ir/diagnostics.js";
import type { Workflow } from "../ir/workflow.js";
import type { LlmConfig } from "../llm/config.js";
import { nodeModelAt } from "../llm/resolve.js";

export interface ModelOption {
  provider: string;
  name: string;
  /** The endpoint that serves it. */
  endpoint: string;
}

/** Every model the configuration serves by name: each endpoint's model and default model, and the named routes. */
export function modelOptions(cfg: LlmConfig | undefined): ModelOption[] {
  if (!cfg) return [];
  const out: ModelOption[] = [];
  const add = (endpoint: string, name: string | undefined) => {
    if (!name || !cfg.endpoints[endpoint]) return;
    const { provider } = nodeModelAt(cfg, endpoint, name);
    if (!out.some((o) => o.provider === provider && o.name === name)) out.push({ provider, name, endpoint });
  };
  for (const [name, ep] of Object.entries(cfg.endpoints)) {
    add(name, ep.model);
    add(name, ep.defaultModel);
  }
  for (const [name, route] of Object.entries(cfg.models)) add(typeof route === "string" ? route : route.endpoint, name);
  return out;
}

/** The model a node calls, wherever its type keeps it (`model.name`, the agent's `model.value.model`). */
function modelOf(config: unknown): { name: string; field: string } | undefined {
  const m = (config as { model?: Record<string, unknown> } | undefined)?.model;
  if (!m || typeof m !== "object") return undefined;
  if (typeof m.name === "string" && typeof m.provider === "string") return { name: m.name, field: "model" };
  const v = m.value as Record<string, unknown> | undefined;
  if (v && typeof v.model === "string" && typeof v.provider === "string")
    return { name: v.model, field: "model.value" };
  return undefined;
}

/**
 * A warning on each node whose model the configuration does not name (it may still be served: an endpoint can
 * take any model name); nothing when no model is configured at all (the run says so then).
 */
export function modelDiagnostics(wf: Workflow, options: ModelOption[]): Diagnostic[] {
  if (options.length === 0) return [];
  const names = options.map((o) => o.name);
  const out: Diagnostic[] = [];
  for (const n of wf.nodes) {
    const m = modelOf(n.config);
    if (!m || names.includes(m.name)) continue;
    out.push({
      code: "model.not_configured",
      severity: "warning",
      nodeId: n.id,
      field: m.field,
      message: `model "${m.name}" is not one of the configured models (${names.join(", ")}); add it to weft.config.json (llm.models or an endpoint's model) or pick a configured one`,
    });
  }
  return out;
}
