/** Retrieval testing ("hit testing" in Dify): a query against the base, the chunks found with their scores. */
import { useState } from "react";
import { errText } from "../store";
import { type Hit, type KnowledgeBase, type SearchMode, search } from "./knowledgeApi";

export function HitTest({ base }: { base: KnowledgeBase }) {
  // A base without embeddings has only BM25; an embedded one can be searched each way to compare.
  const modes: SearchMode[] = base.embeddingModel ? ["hybrid", "vector", "keyword"] : ["keyword"];
  const [mode, setMode] = useState<SearchMode>(modes[0]!);
  const [query, setQuery] = useState("");
  const [topK, setTopK] = useState(4);
  const [threshold, setThreshold] = useState("");
  const [hits, setHits] = useState<{ mode: SearchMode; result: Hit[] }>();
  const [error, setError] = useState<string>();
  const run = async () => {
    setError(undefined);
    // Said here, not sent: JSON would carry a non-number as null, which the API takes as "no threshold".
    const t = threshold.trim() === "" ? undefined : Number(threshold);
    if (t !== undefined && !(t >= 0 && t <= 1)) {
      setHits(undefined);
      return setError(`score threshold: "${threshold}" is not a number from 0 to 1 (leave it empty for none)`);
    }
    if (!Number.isInteger(topK) || topK < 1 || topK > 100) {
      setHits(undefined);
      return setError("top K: a whole number from 1 to 100");
    }
    try {
      setHits(await search(base.id, { query, top_k: topK, mode, ...(t === undefined ? {} : { score_threshold: t }) }));
    } catch (e) {
      setHits(undefined);
      setError(errText(e));
    }
  };
  return (
    <section className="kb-hit-test" data-testid="kb-hit-test">
      <h4>Retrieval testing</h4>
      <form
        onSubmit={(e) => {
          e.preventDefault();
          void run();
        }}
      >
        <textarea
          data-testid="kb-query"
          rows={3}
          placeholder="A question to retrieve chunks for"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
        />
        <div className="kb-actions">
          <select data-testid="kb-mode" value={mode} onChange={(e) => setMode(e.target.value as SearchMode)}>
            {modes.map((m) => (
              <option key={m} value={m}>
                {m === "keyword" ? "keyword (BM25)" : m === "vector" ? "vector (cosine)" : "hybrid"}
              </option>
            ))}
          </select>
          <label className="small">
            Top K{" "}
            <input
              data-testid="kb-top-k"
              type="number"
              min={1}
              max={100}
              value={topK}
              onChange={(e) => setTopK(Number(e.target.value))}
              style={{ width: 56 }}
            />
          </label>
          <label className="small">
            Score threshold{" "}
            <input
              data-testid="kb-threshold"
              placeholder="none"
              value={threshold}
              onChange={(e) => setThreshold(e.target.value)}
              style={{ width: 56 }}
            />
          </label>
          <button type="submit" data-testid="kb-test" disabled={!query.trim()}>
            Test
          </button>
        </div>
      </form>
      {error && (
        <p className="diag error" data-testid="kb-test-error">
          {error}
        </p>
      )}
      {hits && (
        <div data-testid="kb-hits" data-mode={hits.mode}>
          <p className="muted small">
            {hits.result.length} {hits.result.some((h) => h.metadata.child_chunks) ? "parent chunks" : "chunks"} ·{" "}
            {hits.mode}
          </p>
          {hits.result.map((h, i) => (
            <div key={i} className="kb-chunk" data-testid="kb-hit">
              <div className="muted small">
                <b className="kb-score" data-testid="kb-hit-score">
                  {h.metadata.score.toFixed(3)}
                </b>{" "}
                · {h.metadata.document_name} · {h.metadata.child_chunks ? "parent" : "chunk"} #
                {h.metadata.segment_position}
              </div>
              {h.metadata.child_chunks && (
                <div className="kb-children" data-testid="kb-hit-children">
                  {h.metadata.child_chunks.map((c) => (
                    <span key={c.id} className="kb-child kb-child-hit" data-testid="kb-hit-child">
                      <b className="kb-child-label">child</b> {c.content}{" "}
                      <span className="muted small">{c.score.toFixed(3)}</span>
                    </span>
                  ))}
                </div>
              )}
              <div className="kb-chunk-text">{h.content}</div>
            </div>
          ))}
        </div>
      )}
    </section>
  );
}
