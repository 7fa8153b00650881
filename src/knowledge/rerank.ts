/**
 * A rerank model reached over HTTP: the `/rerank` API Cohere, Jina, Voyage, TEI, Xinference and vLLM serve
 * (`{model, query, documents, top_n}` → `{results: [{index, relevance_score}]}`), configured in weft.config.json
 * `knowledge.rerank`. The answer is hostile input: indexes outside the documents, scores that are not numbers
 * or a body that is not JSON are a typed error naming the endpoint, never a silent reorder.
 */
import { z } from "zod";
import { WeftError } from "../ir/errors.js";
import type { RerankConfig } from "./config.js";

export class RerankError extends WeftError {}

export interface RerankScore {
  /** Position of the document in the list that was sent. */
  index: number;
  score: number;
}

const RerankResponse = z.object({
  results: z.array(z.object({ index: z.number().int().min(0), relevance_score: z.number().finite() }).loose()),
});

export class RerankClient {
  constructor(private readonly cfg: RerankConfig) {}

  /** The endpoint's model for a node's `reranking_model.model` (the config's model wins when set). */
  modelFor(requested: string | undefined): string | undefined {
    return this.cfg.model ?? requested;
  }

  async rerank(query: string, documents: string[], o: { model: string; topN: number }): Promise<RerankScore[]> {
    if (documents.length === 0) return [];
    const url = `${this.cfg.baseURL.replace(/\/+$/, "")}/rerank`;
    const apiKey = this.cfg.apiKey ?? (this.cfg.apiKeyEnv ? process.env[this.cfg.apiKeyEnv] : undefined);
    let res: Response;
    try {
      res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json", ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}) },
        body: JSON.stringify({ model: o.model, query, documents, top_n: Math.min(o.topN, documents.length) }),
        signal: AbortSignal.timeout(this.cfg.timeoutMs),
      });
    } catch (e) {
      const timedOut = (e as Error)?.name === "TimeoutError";
      throw new RerankError(
        timedOut ? "knowledge.rerank_timeout" : "knowledge.rerank_unreachable",
        timedOut
          ? `rerank model ${o.model} at ${url} did not answer within ${this.cfg.timeoutMs} ms`
          : `cannot reach the rerank endpoint ${url}: ${(e as Error)?.message ?? String(e)}`,
        { url, model: o.model },
      );
    }
    const text = await res.text();
    if (!res.ok) {
      throw new RerankError(
        "knowledge.rerank_failed",
        `rerank endpoint ${url} answered ${res.status}: ${text.slice(0, 300)}`,
        {
          url,
          model: o.model,
          status: res.status,
        },
      );
    }
    return this.parse(text, documents.length, url);
  }

  private parse(text: string, count: number, url: string): RerankScore[] {
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      throw new RerankError(
        "knowledge.rerank_invalid_response",
        `rerank endpoint ${url} answered with something that is not JSON`,
        { url },
      );
    }
    const r = RerankResponse.safeParse(body);
    if (!r.success) {
      const i = r.error.issues[0]!;
      throw new RerankError(
        "knowledge.rerank_invalid_response",
        `rerank endpoint ${url}: ${i.path.join(".") || "body"}: ${i.message}`,
        { url },
      );
    }
    const seen = new Set<number>();
    for (const x of r.data.results) {
      if (x.index >= count || seen.has(x.index)) {
        throw new RerankError(
          "knowledge.rerank_invalid_response",
          `rerank endpoint ${url} scored document ${x.index}, but ${count} were sent${seen.has(x.index) ? " (or scored it twice)" : ""}`,
          { url },
        );
      }
      seen.add(x.index);
    }
    return r.data.results.map((x) => ({ index: x.index, score: x.relevance_score }));
  }
}
