/** Routes a workflow's model reference (Dify provider + model name) to a configured endpoint. */
import { NotConfiguredError } from "../ir/errors.js";
import type { ModelRef } from "../ir/services.js";
import { describeConfigHelp, type EndpointConfig, type LlmConfig } from "./config.js";

export interface ResolvedModel {
  endpointName: string;
  endpoint: EndpointConfig;
  /** Model id sent on the wire. */
  modelId: string;
  /** Which rule chose the endpoint. */
  via: "model" | "provider" | "default";
}

/**
 * Names a Dify provider may be configured under, most specific first. Plugin-form names
 * (`langgenius/openai/openai`, `langgenius/gemini/google`) also match their provider and plugin parts,
 * so a mapping for `openai` serves both the legacy and the plugin spelling.
 */
export function difyProviderCandidates(provider: string): string[] {
  const p = provider.trim().toLowerCase();
  if (!p) return [];
  const out = [p];
  const parts = p.split("/").filter(Boolean);
  if (parts.length === 3) out.push(parts[2] as string, parts[1] as string);
  else if (parts.length === 2) out.push(parts[1] as string, parts[0] as string);
  return [...new Set(out)];
}

export function resolveModel(cfg: LlmConfig, ref: Pick<ModelRef, "provider" | "name">): ResolvedModel {
  const name = ref.name?.trim() ?? "";
  const route = name ? cfg.models[name] : undefined;
  if (route !== undefined) {
    const endpointName = typeof route === "string" ? route : route.endpoint;
    const rename = typeof route === "string" ? undefined : route.model;
    return finish(cfg, ref, endpointName, "model", rename);
  }
  const providers = new Map(Object.entries(cfg.providers).map(([k, v]) => [k.toLowerCase(), v]));
  for (const candidate of difyProviderCandidates(ref.provider ?? "")) {
    const endpointName = providers.get(candidate);
    if (endpointName) return finish(cfg, ref, endpointName, "provider");
  }
  if (cfg.default) return finish(cfg, ref, cfg.default, "default");
  throw notConfigured(
    `No LLM endpoint is configured for model "${name || "(none)"}" of provider "${ref.provider || "(none)"}".`,
    ref,
  );
}

function finish(
  cfg: LlmConfig,
  ref: Pick<ModelRef, "provider" | "name">,
  endpointName: string,
  via: ResolvedModel["via"],
  rename?: string,
): ResolvedModel {
  const endpoint = cfg.endpoints[endpointName];
  if (!endpoint) {
    throw notConfigured(`The LLM config routes to endpoint "${endpointName}", which is not defined.`, ref);
  }
  const modelId = rename ?? endpoint.model ?? (ref.name?.trim() || undefined) ?? endpoint.defaultModel;
  if (!modelId) {
    throw notConfigured(
      `Endpoint "${endpointName}" was chosen for provider "${ref.provider || "(none)"}", but neither the request nor the endpoint names a model (set "model" or "defaultModel").`,
      ref,
    );
  }
  return { endpointName, endpoint, modelId, via };
}

function notConfigured(reason: string, ref: Pick<ModelRef, "provider" | "name">): NotConfiguredError {
  return new NotConfiguredError("llm.not_configured", `${reason}\n\n${describeConfigHelp()}`, {
    provider: ref.provider,
    model: ref.name,
    reason,
  });
}

/** The Dify provider name of each endpoint kind (Dify's marketplace plugin names). */
const DIFY_PROVIDER: Record<string, string> = {
  openai: "langgenius/openai/openai",
  anthropic: "langgenius/anthropic/anthropic",
  gemini: "langgenius/gemini/google",
  ollama: "langgenius/ollama/ollama",
  "openai-compatible": "langgenius/openai_api_compatible/openai_api_compatible",
};

/**
 * The model a node added by an edit gets: the default endpoint's model (`model`, else `defaultModel`),
 * under a Dify provider name that routes back to that endpoint (one the `providers` map sends there, or
 * the endpoint kind's plugin name). `fallbackName` (the model the user asked the agent to use) serves
 * when the default endpoint names no model. Undefined when there is no default endpoint or no name, so
 * callers can say so instead of writing a made-up one.
 */
export function configuredNodeModel(
  cfg: LlmConfig,
  fallbackName?: string,
): { provider: string; name: string } | undefined {
  const endpointName = cfg.default;
  const ep = endpointName ? cfg.endpoints[endpointName] : undefined;
  const name = ep?.model ?? ep?.defaultModel ?? (fallbackName || undefined);
  if (!ep || !endpointName || !name) return undefined;
  return nodeModelAt(cfg, endpointName, name);
}

/** Model `name` on endpoint `endpointName` as a node names it: under a Dify provider name that routes there. */
export function nodeModelAt(cfg: LlmConfig, endpointName: string, name: string): { provider: string; name: string } {
  const ep = cfg.endpoints[endpointName]!;
  const mapped = Object.entries(cfg.providers).find(([, e]) => e === endpointName)?.[0];
  const candidates = [...(mapped ? [mapped] : []), DIFY_PROVIDER[ep.provider] ?? ep.provider];
  const routesHome = (provider: string) => {
    try {
      return resolveModel(cfg, { provider, name }).endpointName === endpointName;
    } catch {
      return false;
    }
  };
  return { provider: candidates.find(routesHome) ?? candidates[0]!, name };
}
