/**
 * Where model calls go. A config names *endpoints* (a provider kind + base URL + key), maps Dify provider
 * names and model names onto them, and may name a default endpoint. It comes from the `llm` key of a JSON
 * file (`weft.config.json` in the working directory, or the file named by `WEFT_CONFIG`) plus environment
 * variables; see `describeConfigHelp()` for the user-facing explanation.
 */
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { z } from "zod";
import { LlmConfigError } from "./errors.js";

export const PROVIDER_KINDS = ["openai-compatible", "openai", "anthropic", "gemini", "ollama"] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

const endpointSchema = z
  .strictObject({
    /** Wire protocol; `ollama` is OpenAI-compatible at Ollama's /v1. */
    provider: z.enum(PROVIDER_KINDS),
    baseURL: z.url().optional(),
    apiKey: z.string().min(1).optional(),
    /** Name of an environment variable holding the key, so keys stay out of the file. */
    apiKeyEnv: z.string().min(1).optional(),
    /** Always send this model id, whatever model the workflow names (a local server serves one model). */
    model: z.string().min(1).optional(),
    /** Model id used when the request names none. */
    defaultModel: z.string().min(1).optional(),
    embeddingModel: z.string().min(1).optional(),
    headers: z.record(z.string(), z.string()).optional(),
    timeoutMs: z.int().positive().optional(),
    /** How to ask for JSON: the provider's JSON mode (default) or a forced function call. */
    structuredOutput: z.enum(["json", "tool"]).optional(),
    /** OpenAI-compatible servers: send the JSON Schema (`json_schema`) rather than plain `json_object`. */
    supportsStructuredOutputs: z.boolean().optional(),
  })
  .superRefine((ep, ctx) => {
    if (ep.provider === "openai-compatible" && !ep.baseURL) {
      ctx.addIssue({ code: "custom", path: ["baseURL"], message: "an openai-compatible endpoint needs a baseURL" });
    }
  });

const retrySchema = z.strictObject({
  /** Retries after the first attempt. */
  maxRetries: z.int().min(0).max(10).default(3),
  baseDelayMs: z.int().min(0).default(500),
  maxDelayMs: z.int().min(0).default(8_000),
  /** A Retry-After longer than this is not waited for: the call fails with llm.rate_limited. */
  maxRetryAfterMs: z.int().min(0).default(60_000),
});

const modelRouteSchema = z.union([
  z.string().min(1),
  z.strictObject({ endpoint: z.string().min(1), model: z.string().min(1).optional() }),
]);

export const llmConfigSchema = z.strictObject({
  endpoints: z.record(z.string().min(1), endpointSchema).default({}),
  /** Endpoint for any model no other rule routes. */
  default: z.string().min(1).optional(),
  /** Dify provider name (`openai`, `langgenius/openai/openai`, `deepseek`...) → endpoint name. */
  providers: z.record(z.string().min(1), z.string().min(1)).default({}),
  /** Model name → endpoint name, or {endpoint, model} to also rename the model. */
  models: z.record(z.string().min(1), modelRouteSchema).default({}),
  retry: retrySchema.default({ maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 }),
  /** Per-attempt timeout unless an endpoint sets its own. */
  timeoutMs: z.int().positive().default(120_000),
});

export type EndpointConfig = z.output<typeof endpointSchema>;
export type RetryPolicy = z.output<typeof retrySchema>;
export type LlmConfigInput = z.input<typeof llmConfigSchema>;
export type LlmConfig = z.output<typeof llmConfigSchema>;

/** Validates a config object (the `llm` section of the file); `source` names it in error messages. */
export function parseLlmConfig(input: unknown, source = "config"): LlmConfig {
  const parsed = llmConfigSchema.safeParse(input ?? {});
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) => `${[source, ...i.path.map(String)].join(".")}: ${i.message}`);
    throw new LlmConfigError("llm.config_invalid", `Invalid LLM configuration:\n  ${issues.join("\n  ")}`, {
      source,
      issues,
    });
  }
  checkReferences(parsed.data, source);
  return parsed.data;
}

function checkReferences(cfg: LlmConfig, source: string): void {
  const issues: string[] = [];
  const known = (name: string) => Object.hasOwn(cfg.endpoints, name);
  if (cfg.default && !known(cfg.default)) issues.push(`${source}.default: no endpoint named "${cfg.default}"`);
  for (const [p, ep] of Object.entries(cfg.providers)) {
    if (!known(ep)) issues.push(`${source}.providers.${p}: no endpoint named "${ep}"`);
  }
  for (const [m, route] of Object.entries(cfg.models)) {
    const ep = typeof route === "string" ? route : route.endpoint;
    if (!known(ep)) issues.push(`${source}.models.${m}: no endpoint named "${ep}"`);
  }
  if (issues.length) {
    throw new LlmConfigError("llm.config_invalid", `Invalid LLM configuration:\n  ${issues.join("\n  ")}`, {
      source,
      issues,
    });
  }
}

export interface LoadLlmConfigOptions {
  /** Directory searched for weft.config.json (default: process.cwd()). */
  cwd?: string;
  /** Environment (default: process.env). */
  env?: Record<string, string | undefined>;
  /** Explicit config file; overrides WEFT_CONFIG. A missing explicit file is an error. */
  path?: string;
}

export const DEFAULT_CONFIG_FILE = "weft.config.json";

/**
 * Reads the config file (if any) and the environment into one validated config. The file is authoritative
 * for what it declares; environment variables add endpoints the file does not name, and `WEFT_LLM_*`
 * becomes the default endpoint (it is a per-shell override).
 */
export function loadLlmConfig(opts: LoadLlmConfigOptions = {}): LlmConfig {
  const env = opts.env ?? process.env;
  const cwd = opts.cwd ?? process.cwd();
  const explicit = opts.path ?? nonEmpty(env.WEFT_CONFIG);
  const file = explicit ? (isAbsolute(explicit) ? explicit : join(cwd, explicit)) : join(cwd, DEFAULT_CONFIG_FILE);
  let section: unknown = {};
  if (existsSync(file)) {
    section = readLlmSection(file);
  } else if (explicit) {
    throw new LlmConfigError("llm.config_not_found", `Config file not found: ${file}`, { path: file });
  }
  const base = parseLlmConfig(section, existsSync(file) ? `${file}#llm` : "config");
  return withEnvironment(base, env);
}

function readLlmSection(file: string): unknown {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (err) {
    throw new LlmConfigError(
      "llm.config_invalid_json",
      `Config file ${file} is not valid JSON: ${(err as Error).message}`,
      {
        path: file,
      },
    );
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) {
    throw new LlmConfigError("llm.config_invalid", `Config file ${file} must hold a JSON object`, { path: file });
  }
  return (raw as Record<string, unknown>).llm ?? {};
}

function nonEmpty(v: string | undefined): string | undefined {
  return v && v.trim() !== "" ? v.trim() : undefined;
}

/** Endpoints that provider-specific environment variables create, with the Dify names each one serves. */
const ENV_ENDPOINTS: Array<{
  name: string;
  key: string[];
  baseUrl: string;
  kind: ProviderKind;
  defaultBaseURL?: string;
  serves: string[];
}> = [
  { name: "openai", key: ["OPENAI_API_KEY"], baseUrl: "OPENAI_BASE_URL", kind: "openai", serves: ["openai"] },
  {
    name: "anthropic",
    key: ["ANTHROPIC_API_KEY"],
    baseUrl: "ANTHROPIC_BASE_URL",
    kind: "anthropic",
    serves: ["anthropic"],
  },
  {
    name: "gemini",
    key: ["GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"],
    baseUrl: "GEMINI_BASE_URL",
    kind: "gemini",
    serves: ["google", "gemini"],
  },
  {
    name: "deepseek",
    key: ["DEEPSEEK_API_KEY"],
    baseUrl: "DEEPSEEK_BASE_URL",
    kind: "openai-compatible",
    defaultBaseURL: "https://api.deepseek.com/v1",
    serves: ["deepseek"],
  },
];

function withEnvironment(base: LlmConfig, env: Record<string, string | undefined>): LlmConfig {
  const cfg: LlmConfig = {
    ...base,
    endpoints: { ...base.endpoints },
    providers: { ...base.providers },
    models: { ...base.models },
  };
  const add = (name: string, raw: Record<string, unknown>, serves: string[], vars: string) => {
    if (Object.hasOwn(cfg.endpoints, name)) return false;
    const parsed = z.record(z.string(), endpointSchema).safeParse({ [name]: raw });
    if (!parsed.success) {
      const issues = parsed.error.issues.map((i) => `${vars}: ${i.path.slice(1).join(".") || "value"}: ${i.message}`);
      throw new LlmConfigError("llm.config_invalid", `Invalid LLM environment variables:\n  ${issues.join("\n  ")}`, {
        source: "environment",
        issues,
      });
    }
    cfg.endpoints[name] = parsed.data[name] as EndpointConfig;
    for (const p of serves) if (!Object.hasOwn(cfg.providers, p)) cfg.providers[p] = name;
    return true;
  };

  for (const spec of ENV_ENDPOINTS) {
    const keyVar = spec.key.find((k) => nonEmpty(env[k]));
    if (!keyVar) continue;
    add(
      spec.name,
      {
        provider: spec.kind,
        apiKey: nonEmpty(env[keyVar]),
        baseURL: nonEmpty(env[spec.baseUrl]) ?? spec.defaultBaseURL,
      },
      spec.serves,
      `${keyVar}/${spec.baseUrl}`,
    );
  }

  const ollamaHost = nonEmpty(env.OLLAMA_BASE_URL) ?? nonEmpty(env.OLLAMA_HOST);
  if (ollamaHost) {
    add(
      "ollama",
      { provider: "ollama", baseURL: ollamaBaseURL(ollamaHost) },
      ["ollama"],
      "OLLAMA_BASE_URL/OLLAMA_HOST",
    );
  }

  const weft = {
    baseURL: nonEmpty(env.WEFT_LLM_BASE_URL),
    apiKey: nonEmpty(env.WEFT_LLM_API_KEY),
    model: nonEmpty(env.WEFT_LLM_MODEL),
    provider: nonEmpty(env.WEFT_LLM_PROVIDER),
  };
  if (weft.baseURL || weft.provider) {
    const provider = weft.provider ?? "openai-compatible";
    const baseURL = provider === "ollama" && weft.baseURL ? ollamaBaseURL(weft.baseURL) : weft.baseURL;
    const vars = "WEFT_LLM_PROVIDER/WEFT_LLM_BASE_URL/WEFT_LLM_API_KEY/WEFT_LLM_MODEL";
    delete cfg.endpoints.env;
    add("env", { provider, baseURL, apiKey: weft.apiKey, model: weft.model }, [], vars);
    cfg.default = "env";
  } else if (weft.apiKey || weft.model) {
    throw new LlmConfigError(
      "llm.config_invalid",
      "WEFT_LLM_API_KEY or WEFT_LLM_MODEL is set, but neither WEFT_LLM_BASE_URL nor WEFT_LLM_PROVIDER says which endpoint they are for",
      { source: "environment" },
    );
  }
  return cfg;
}

/** Ollama's OpenAI-compatible API lives under /v1 of its host (OLLAMA_HOST may omit the scheme). */
function ollamaBaseURL(host: string): string {
  const withScheme = /^https?:\/\//.test(host) ? host : `http://${host}`;
  const trimmed = withScheme.replace(/\/+$/, "");
  return trimmed.endsWith("/v1") ? trimmed : `${trimmed}/v1`;
}

/** True when at least one endpoint exists; CLIs print `describeConfigHelp()` otherwise. */
export function hasAnyEndpoint(cfg: LlmConfig): boolean {
  return Object.keys(cfg.endpoints).length > 0;
}

/** The text that tells a user how to configure a model. Shown by CLIs and inside NotConfiguredError. */
export function describeConfigHelp(): string {
  return `How to configure a language model for Weft:

1. One endpoint for every model (environment variables):
     export WEFT_LLM_BASE_URL=http://127.0.0.1:11434/v1   # vLLM, Ollama /v1, llama.cpp server, LM Studio, any OpenAI-compatible API
     export WEFT_LLM_MODEL=qwen2.5:7b                     # optional: send this model whatever the workflow names
     export WEFT_LLM_API_KEY=sk-...                       # optional for local servers
     export WEFT_LLM_PROVIDER=openai-compatible           # or openai | anthropic | gemini | ollama
   This endpoint becomes the default: every LLM node is sent to it.

2. Provider keys (each serves the workflow nodes whose Dify provider matches):
     OPENAI_API_KEY    (OPENAI_BASE_URL)     -> provider "openai", "langgenius/openai/openai"
     ANTHROPIC_API_KEY (ANTHROPIC_BASE_URL)  -> provider "anthropic"
     GEMINI_API_KEY    (GEMINI_BASE_URL)     -> provider "google", "gemini"
     DEEPSEEK_API_KEY  (DEEPSEEK_BASE_URL)   -> provider "deepseek"
     OLLAMA_HOST or OLLAMA_BASE_URL          -> provider "ollama"

3. A config file: weft.config.json in the working directory, or the file named by WEFT_CONFIG:
{
  "llm": {
    "endpoints": {
      "local":  { "provider": "openai-compatible", "baseURL": "http://127.0.0.1:8000/v1", "model": "Qwen2.5-7B-Instruct" },
      "claude": { "provider": "anthropic", "apiKeyEnv": "ANTHROPIC_API_KEY" },
      "gpt":    { "provider": "openai", "apiKeyEnv": "OPENAI_API_KEY" }
    },
    "default": "local",
    "providers": { "anthropic": "claude", "openai": "gpt", "langgenius/openai/openai": "gpt", "tongyi": "local" },
    "models": { "deepseek-chat": { "endpoint": "local", "model": "Qwen2.5-7B-Instruct" } },
    "retry": { "maxRetries": 3, "baseDelayMs": 500, "maxDelayMs": 8000 },
    "timeoutMs": 120000
  }
}
   Routing: "models" (by model name) first, then "providers" (Dify names; "org/plugin/provider" also
   matches "provider" and "plugin"), then "default". Provider kinds: openai-compatible, openai,
   anthropic, gemini, ollama. Endpoint options: baseURL, apiKey or apiKeyEnv, model, defaultModel,
   embeddingModel, headers, timeoutMs, structuredOutput ("json" | "tool"), supportsStructuredOutputs.
`;
}
