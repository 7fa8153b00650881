/**
 * A Cohere/Jina-style rerank model on loopback (`POST {baseURL}/rerank`: `{model, query, documents, top_n}` →
 * `{results: [{index, relevance_score}]}`), for tests and benches. What it answers is a script over the
 * request body, set per test; `lexicalRerank` is a deterministic scorer for benches (no rerank model runs
 * here), and says what it is.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { indexWords } from "../../src/store/knowledge.js";

export type RerankScript = (body: any) => { status: number; json: unknown };

export interface RerankServer {
  /** `http://127.0.0.1:PORT/v1`: the rerank config's baseURL. */
  baseURL: string;
  /** Every request: its JSON body and Authorization header. */
  readonly requests: Array<{ body: any; auth?: string }>;
  /** What the server answers from now on. */
  script: RerankScript;
  close(): Promise<void>;
}

export async function startRerankServer(
  script: RerankScript = () => ({ status: 500, json: { error: "no script" } }),
): Promise<RerankServer> {
  const requests: RerankServer["requests"] = [];
  const state = { script };
  const server: Server = createServer((req, res) => {
    let raw = "";
    req.on("data", (c) => (raw += c));
    req.on("end", () => {
      let body: any;
      try {
        body = JSON.parse(raw);
      } catch {
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: "body is not JSON" }));
        return;
      }
      requests.push({ body, auth: req.headers.authorization });
      const out = req.url === "/v1/rerank" ? state.script(body) : { status: 404, json: { error: "not found" } };
      res.writeHead(out.status, { "content-type": "application/json" }).end(JSON.stringify(out.json));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    requests,
    get script() {
      return state.script;
    },
    set script(s: RerankScript) {
      state.script = s;
    },
    close: () => new Promise((r) => server.close(() => r())),
  };
}

/** A script answering from per-document scores, best first, cut at top_n (as Cohere and Jina answer). */
export function scoredBy(score: (document: string, query: string) => number): RerankScript {
  return (body) => ({
    status: 200,
    json: {
      results: (body.documents as string[])
        .map((d, index) => ({ index, relevance_score: score(d, body.query) }))
        .sort((a, b) => b.relevance_score - a.relevance_score)
        .slice(0, body.top_n ?? body.documents.length),
    },
  });
}

/**
 * A stand-in rerank model for benches: the IDF-weighted share of the query's words a document contains, IDF
 * taken over the documents of the request. Deterministic and lexical — it measures the rerank path (what is
 * sent, how scores cut and reorder), not the quality of a neural reranker.
 */
export const lexicalRerank: RerankScript = (body) => {
  const docs = (body.documents as string[]).map((d) => new Set(indexWords(d)));
  const words = [...new Set(indexWords(String(body.query)))];
  const idf = new Map(words.map((w) => [w, Math.log(1 + docs.length / (1 + docs.filter((d) => d.has(w)).length))]));
  const total = words.reduce((s, w) => s + idf.get(w)!, 0) || 1;
  return {
    status: 200,
    json: {
      results: docs
        .map((d, index) => ({
          index,
          relevance_score: words.reduce((s, w) => s + (d.has(w) ? idf.get(w)! : 0), 0) / total,
        }))
        .sort((a, b) => b.relevance_score - a.relevance_score || a.index - b.index)
        .slice(0, body.top_n ?? docs.length),
    },
  };
};
