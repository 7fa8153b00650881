import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { NotConfiguredError } from "../../src/ir/errors.js";
import {
  createLlmService,
  describeConfigHelp,
  difyProviderCandidates,
  hasAnyEndpoint,
  LlmConfigError,
  loadLlmConfig,
  parseLlmConfig,
  resolveModel,
} from "../../src/llm/index.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "weft-llm-config-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(llm: unknown, name = "weft.config.json"): string {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify({ server: { port: 1 }, llm }));
  return path;
}

const fileConfig = {
  endpoints: {
    local: { provider: "openai-compatible", baseURL: "http://127.0.0.1:8000/v1", model: "qwen" },
    claude: { provider: "anthropic", apiKey: "sk-ant" },
    gpt: { provider: "openai", apiKeyEnv: "MY_OPENAI_KEY" },
  },
  default: "local",
  providers: { anthropic: "claude", openai: "gpt" },
  models: { "deepseek-chat": { endpoint: "local", model: "qwen-32b" }, "gpt-4o": "gpt" },
};

describe("loadLlmConfig", () => {
  it("reads the llm section of weft.config.json in cwd and routes Dify providers", () => {
    writeConfig(fileConfig);
    const cfg = loadLlmConfig({ cwd: dir, env: {} });
    expect(Object.keys(cfg.endpoints)).toEqual(["local", "claude", "gpt"]);
    expect(cfg.retry).toEqual({ maxRetries: 3, baseDelayMs: 500, maxDelayMs: 8000, maxRetryAfterMs: 60000 });

    // Plugin-form provider names match the short mapping.
    expect(resolveModel(cfg, { provider: "langgenius/anthropic/anthropic", name: "claude-3-5-sonnet" })).toMatchObject({
      endpointName: "claude",
      modelId: "claude-3-5-sonnet",
      via: "provider",
    });
    expect(resolveModel(cfg, { provider: "openai", name: "gpt-4o-mini" })).toMatchObject({
      endpointName: "gpt",
      via: "provider",
    });
    // Model routes win over provider routes and may rename.
    expect(resolveModel(cfg, { provider: "deepseek", name: "deepseek-chat" })).toMatchObject({
      endpointName: "local",
      modelId: "qwen-32b",
      via: "model",
    });
    // Anything else goes to the default, whose fixed model replaces the workflow's.
    expect(resolveModel(cfg, { provider: "tongyi", name: "qwen-max" })).toMatchObject({
      endpointName: "local",
      modelId: "qwen",
      via: "default",
    });
  });

  it("uses WEFT_CONFIG (relative to cwd) and fails clearly when that file is missing", () => {
    writeConfig(fileConfig, "custom.json");
    expect(Object.keys(loadLlmConfig({ cwd: dir, env: { WEFT_CONFIG: "custom.json" } }).endpoints)).toContain("claude");
    const err = (() => {
      try {
        loadLlmConfig({ cwd: dir, env: { WEFT_CONFIG: "nope.json" } });
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(LlmConfigError);
    expect(err).toMatchObject({ code: "llm.config_not_found" });
  });

  it("reports invalid JSON and schema problems with their paths", () => {
    writeFileSync(join(dir, "weft.config.json"), "{ not json");
    expect(() => loadLlmConfig({ cwd: dir, env: {} })).toThrow(
      expect.objectContaining({ code: "llm.config_invalid_json" }),
    );

    writeConfig({
      endpoints: { a: { provider: "mistral" }, b: { provider: "openai-compatible" } },
      default: "zzz",
      extra: 1,
    });
    try {
      loadLlmConfig({ cwd: dir, env: {} });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(LlmConfigError);
      const issues = (e as LlmConfigError).details.issues as string[];
      expect(issues.join("\n")).toMatch(/endpoints\.a\.provider/);
      expect(issues.join("\n")).toMatch(/endpoints\.b\.baseURL: an openai-compatible endpoint needs a baseURL/);
      expect(issues.join("\n")).toMatch(/extra/);
    }
  });

  it("rejects routes to endpoints that do not exist", () => {
    expect(() => parseLlmConfig({ endpoints: {}, providers: { openai: "ghost" } })).toThrow(
      /providers\.openai: no endpoint named "ghost"/,
    );
  });

  it("builds endpoints from provider environment variables", () => {
    const cfg = loadLlmConfig({
      cwd: dir,
      env: {
        OPENAI_API_KEY: "sk-o",
        OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
        ANTHROPIC_API_KEY: "sk-a",
        GEMINI_API_KEY: "g",
        DEEPSEEK_API_KEY: "d",
        OLLAMA_HOST: "127.0.0.1:11434",
      },
    });
    expect(cfg.endpoints.openai).toMatchObject({
      provider: "openai",
      apiKey: "sk-o",
      baseURL: "http://127.0.0.1:9/v1",
    });
    expect(cfg.endpoints.ollama).toMatchObject({ provider: "ollama", baseURL: "http://127.0.0.1:11434/v1" });
    expect(cfg.endpoints.deepseek).toMatchObject({
      provider: "openai-compatible",
      baseURL: "https://api.deepseek.com/v1",
    });
    expect(resolveModel(cfg, { provider: "langgenius/openai/openai", name: "gpt-4o" }).endpointName).toBe("openai");
    expect(resolveModel(cfg, { provider: "langgenius/gemini/google", name: "gemini-2.0-flash" }).endpointName).toBe(
      "gemini",
    );
    expect(resolveModel(cfg, { provider: "langgenius/deepseek/deepseek", name: "deepseek-chat" }).endpointName).toBe(
      "deepseek",
    );
    expect(resolveModel(cfg, { provider: "langgenius/ollama/ollama", name: "llama3" }).endpointName).toBe("ollama");
    expect(resolveModel(cfg, { provider: "anthropic", name: "claude" }).endpointName).toBe("anthropic");
    // No default: a provider nobody serves is not silently sent elsewhere.
    expect(() => resolveModel(cfg, { provider: "tongyi", name: "qwen-max" })).toThrow(NotConfiguredError);
  });

  it("WEFT_LLM_* becomes the default endpoint; the file keeps its own mappings", () => {
    writeConfig(fileConfig);
    const cfg = loadLlmConfig({
      cwd: dir,
      env: { WEFT_LLM_BASE_URL: "http://127.0.0.1:1234/v1", WEFT_LLM_MODEL: "phi-4", WEFT_LLM_API_KEY: "x" },
    });
    expect(cfg.default).toBe("env");
    expect(cfg.endpoints.env).toMatchObject({ provider: "openai-compatible", model: "phi-4", apiKey: "x" });
    expect(resolveModel(cfg, { provider: "tongyi", name: "qwen-max" })).toMatchObject({
      endpointName: "env",
      modelId: "phi-4",
    });
    expect(resolveModel(cfg, { provider: "anthropic", name: "c" }).endpointName).toBe("claude");
  });

  it("WEFT_LLM_PROVIDER alone picks a provider with its default base URL", () => {
    const cfg = loadLlmConfig({ cwd: dir, env: { WEFT_LLM_PROVIDER: "ollama", WEFT_LLM_MODEL: "llama3.2" } });
    expect(cfg.endpoints.env).toEqual({ provider: "ollama", model: "llama3.2" });
    expect(resolveModel(cfg, { provider: "openai", name: "gpt-4o" })).toMatchObject({
      endpointName: "env",
      modelId: "llama3.2",
    });
    const ollama = loadLlmConfig({
      cwd: dir,
      env: { WEFT_LLM_PROVIDER: "ollama", WEFT_LLM_BASE_URL: "http://127.0.0.1:11434" },
    });
    expect(ollama.endpoints.env?.baseURL).toBe("http://127.0.0.1:11434/v1");
  });

  it("rejects inconsistent WEFT_LLM_* variables", () => {
    expect(() => loadLlmConfig({ cwd: dir, env: { WEFT_LLM_MODEL: "x" } })).toThrow(LlmConfigError);
    expect(() => loadLlmConfig({ cwd: dir, env: { WEFT_LLM_PROVIDER: "openai-compatible" } })).toThrow(
      /WEFT_LLM_PROVIDER.*baseURL/s,
    );
    expect(() => loadLlmConfig({ cwd: dir, env: { WEFT_LLM_BASE_URL: "not a url" } })).toThrow(/WEFT_LLM_BASE_URL/);
  });

  it("has no endpoints when nothing is configured", () => {
    expect(hasAnyEndpoint(loadLlmConfig({ cwd: dir, env: {} }))).toBe(false);
  });
});

describe("Dify provider names", () => {
  it("plugin form also matches its provider and plugin parts", () => {
    expect(difyProviderCandidates("langgenius/gemini/google")).toEqual([
      "langgenius/gemini/google",
      "google",
      "gemini",
    ]);
    expect(difyProviderCandidates("OpenAI")).toEqual(["openai"]);
    expect(difyProviderCandidates("")).toEqual([]);
  });
});

describe("not configured", () => {
  it("NotConfiguredError names the model and carries the help text", async () => {
    const llm = createLlmService({});
    const err = await llm
      .chat({
        model: { provider: "langgenius/tongyi/tongyi", name: "qwen-max" },
        messages: [{ role: "user", content: "hi" }],
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotConfiguredError);
    expect(err).toMatchObject({
      code: "llm.not_configured",
      details: { provider: "langgenius/tongyi/tongyi", model: "qwen-max" },
    });
    const message = (err as Error).message;
    expect(message).toContain(
      'No LLM endpoint is configured for model "qwen-max" of provider "langgenius/tongyi/tongyi"',
    );
    expect(message).toContain(describeConfigHelp());
  });

  it("the help text explains env vars and the config file, and its example is a valid config", () => {
    const help = describeConfigHelp();
    for (const word of [
      "WEFT_LLM_BASE_URL",
      "WEFT_LLM_API_KEY",
      "WEFT_LLM_MODEL",
      "WEFT_LLM_PROVIDER",
      "OPENAI_API_KEY",
      "ANTHROPIC_API_KEY",
      "GEMINI_API_KEY",
      "WEFT_CONFIG",
      "weft.config.json",
    ]) {
      expect(help).toContain(word);
    }
    const example = help.slice(help.indexOf("{"), help.lastIndexOf("}") + 1);
    const parsed = JSON.parse(example) as { llm: unknown };
    expect(() => parseLlmConfig(parsed.llm)).not.toThrow();
  });

  it("an endpoint whose key variable is unset fails with llm.no_api_key before any request", async () => {
    const llm = createLlmService(
      { endpoints: { gpt: { provider: "openai", apiKeyEnv: "MISSING_KEY" } }, default: "gpt" },
      { env: {} },
    );
    await expect(llm.chat({ model: { provider: "openai", name: "gpt-4o" }, messages: [] })).rejects.toMatchObject({
      code: "llm.no_api_key",
      details: { env: "MISSING_KEY" },
    });
  });
});

describe("config from the environment, end to end", () => {
  let server: ReplayServer;
  beforeAll(async () => {
    server = await startReplayServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it("WEFT_LLM_BASE_URL + model serve a Dify-named model", async () => {
    server.enqueue(reply.text("from env"));
    const cfg = loadLlmConfig({
      cwd: dir,
      env: { WEFT_LLM_BASE_URL: server.openaiBaseURL, WEFT_LLM_MODEL: "local-model" },
    });
    const res = await createLlmService(cfg).chat({
      model: { provider: "langgenius/openai/openai", name: "gpt-4o" },
      messages: [{ role: "user", content: "hi" }],
    });
    expect(res).toMatchObject({ text: "from env", endpoint: "env", model: "local-model" });
    expect(server.requests[0]?.body.model).toBe("local-model");
    expect(server.requests[0]?.headers.authorization).toBeUndefined();
  });

  it("apiKeyEnv is read from the service environment", async () => {
    server.enqueue(reply.text("keyed"));
    const llm = createLlmService(
      {
        endpoints: { gpt: { provider: "openai", baseURL: server.openaiBaseURL, apiKeyEnv: "MY_KEY" } },
        providers: { openai: "gpt" },
      },
      { env: { MY_KEY: "sk-from-env" } },
    );
    await llm.chat({ model: { provider: "openai", name: "gpt-4o" }, messages: [{ role: "user", content: "hi" }] });
    expect(server.requests.at(-1)?.headers.authorization).toBe("Bearer sk-from-env");
  });
});
