import { createLlmService, type WeftLlmService } from "../../src/llm/index.js";
import type { ReplayServer } from "./replay-server.js";

/**
 * The LLM service a test drives against `server`: its one OpenAI-compatible endpoint as the default, and no
 * retries (each scripted reply answers one call; a retry would take the next one). Call it once the server has
 * started (inside a test or a hook), since it reads the server's URL.
 */
export const replayLlm = (server: Pick<ReplayServer, "openaiBaseURL">): WeftLlmService =>
  createLlmService({
    endpoints: { ep: { provider: "openai-compatible", baseURL: server.openaiBaseURL } },
    default: "ep",
    retry: { maxRetries: 0 },
  });
