/**
 * Replayed model answers for test runs. A model node's request is made from its config (model, parameters,
 * prompt template, tools, output schema) and its resolved inputs (the variables the prompt reads), so the
 * request itself, hashed, is the key: after a change to one node, the nodes whose config and inputs are the
 * same send the same request and are answered from the cache; only those whose request changed call the
 * model (and their answers are recorded for next time). Live mode does not use this at all.
 */
import { createHash } from "node:crypto";
import type { LlmRequest, LlmResponse, LlmService } from "../ir/services.js";
import type { AppTestStore } from "../store/app-tests.js";

/** File bytes are keyed by their hash, so a key stays small whatever the attachments. */
function keyable(v: unknown): unknown {
  if (v instanceof Uint8Array) return { sha256: createHash("sha256").update(v).digest("hex") };
  if (Array.isArray(v)) return v.map(keyable);
  if (v && typeof v === "object") {
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v).sort()) {
      const x = (v as Record<string, unknown>)[k];
      if (typeof x !== "function" && x !== undefined) out[k] = keyable(x);
    }
    return out;
  }
  return v;
}

export function requestKey(req: LlmRequest): string {
  const { model, messages, tools, json } = req;
  const canonical = JSON.stringify(keyable({ model, messages, tools, json }));
  return `llm:v1:${createHash("sha256").update(canonical).digest("hex")}`;
}

/** An LlmService answering from recorded answers first; what it had to ask the model is recorded. */
export class ReplayCacheLlm implements LlmService {
  cached = 0;
  live = 0;
  readonly embed?: LlmService["embed"];

  constructor(
    private readonly inner: LlmService,
    private readonly store: AppTestStore,
  ) {
    if (inner.embed) this.embed = inner.embed.bind(inner);
  }

  async chat(req: LlmRequest): Promise<LlmResponse> {
    const key = requestKey(req);
    const hit = (await this.store.cachedAnswer(key)) as LlmResponse | undefined;
    if (hit) {
      this.cached++;
      // A streaming node still sees its text arrive.
      if (hit.text) req.onText?.(hit.text);
      return hit;
    }
    this.live++;
    const res = await this.inner.chat(req);
    await this.store.cacheAnswer(key, res, Date.now());
    return res;
  }
}
