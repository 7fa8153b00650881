/** Builds AI SDK model objects for a configured endpoint. */
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { createOpenAI } from "@ai-sdk/openai";
import { createOpenAICompatible } from "@ai-sdk/openai-compatible";
import type { EmbeddingModel, LanguageModel } from "ai";
import { NotConfiguredError } from "../ir/errors.js";
import type { EndpointConfig, ProviderKind } from "./config.js";
import { LlmError } from "./errors.js";

export const DEFAULT_OLLAMA_BASE_URL = "http://127.0.0.1:11434/v1";

/** Environment variables a provider kind reads its key from when the endpoint names none. */
const KEY_ENV: Partial<Record<ProviderKind, string[]>> = {
  openai: ["OPENAI_API_KEY"],
  anthropic: ["ANTHROPIC_API_KEY"],
  gemini: ["GEMINI_API_KEY", "GOOGLE_GENERATIVE_AI_API_KEY"],
};

export type Env = Record<string, string | undefined>;

export function apiKeyOf(name: string, ep: EndpointConfig, env: Env): string | undefined {
  if (ep.apiKey) return ep.apiKey;
  if (ep.apiKeyEnv) {
    const v = env[ep.apiKeyEnv];
    if (!v) {
      throw new NotConfiguredError(
        "llm.no_api_key",
        `Endpoint "${name}" reads its API key from ${ep.apiKeyEnv}, which is not set`,
        { endpoint: name, env: ep.apiKeyEnv },
      );
    }
    return v;
  }
  for (const k of KEY_ENV[ep.provider] ?? []) if (env[k]) return env[k];
  if (KEY_ENV[ep.provider]) {
    throw new NotConfiguredError(
      "llm.no_api_key",
      `Endpoint "${name}" (${ep.provider}) has no API key: set "apiKey" or "apiKeyEnv" in its config, or ${(KEY_ENV[ep.provider] ?? []).join(" / ")}`,
      { endpoint: name, provider: ep.provider },
    );
  }
  return undefined;
}

/** Provider-specific call options that keep behaviour close to a plain chat-completions call. */
export function providerOptionsFor(ep: EndpointConfig): Record<string, Record<string, string | number | boolean>> {
  switch (ep.provider) {
    case "openai":
      // Dify schemas are rarely "strict"-compatible (all properties required, no additionalProperties).
      return { openai: { strictJsonSchema: false } };
    default:
      return {};
  }
}

export interface EndpointModels {
  language(modelId: string): LanguageModel;
  embedding(modelId: string): EmbeddingModel;
}

export function endpointModels(name: string, ep: EndpointConfig, env: Env): EndpointModels {
  const apiKey = apiKeyOf(name, ep, env);
  const headers = ep.headers;
  switch (ep.provider) {
    case "openai-compatible":
    case "ollama": {
      const p = createOpenAICompatible({
        name,
        baseURL: ep.baseURL ?? DEFAULT_OLLAMA_BASE_URL,
        apiKey,
        headers,
        includeUsage: true,
        supportsStructuredOutputs: ep.supportsStructuredOutputs ?? false,
      });
      return { language: (id) => p.chatModel(id), embedding: (id) => p.embeddingModel(id) };
    }
    case "openai": {
      const p = createOpenAI({ apiKey, baseURL: ep.baseURL, headers });
      // Chat Completions rather than the Responses API: it is what OpenAI-style proxies implement.
      return { language: (id) => p.chat(id), embedding: (id) => p.embedding(id) };
    }
    case "anthropic": {
      const p = createAnthropic({ apiKey, baseURL: ep.baseURL, headers });
      return {
        language: (id) => p.messages(id),
        embedding: () => {
          throw new LlmError("llm.unsupported", `Endpoint "${name}" (anthropic) offers no embedding models`, {
            endpoint: name,
          });
        },
      };
    }
    case "gemini": {
      const p = createGoogleGenerativeAI({ apiKey, baseURL: ep.baseURL, headers });
      return { language: (id) => p.chat(id), embedding: (id) => p.embedding(id) };
    }
  }
}
