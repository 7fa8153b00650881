/**
 * The keyword side of Dify's weighted_score hybrid search (its WeightRerankRunner): the query's keywords and each
 * candidate's as TF-IDF vectors, the IDF counted over the candidates themselves, scored by their cosine.
 *
 * Computed here from the chunks' text rather than taken from the store's ranker: SQLite's FTS5 BM25 and
 * PostgreSQL's ts_rank score on different scales, and normalising either by its best hit left near-ties to break
 * differently on each backend, so one RAG app could answer differently on SQLite and on PostgreSQL.
 *
 * Keywords are the store's index words (Intl.Segmenter words for CJK) where Dify uses jieba's keyword extraction;
 * as jieba's extract_tags does, each keyword counts once, and one-letter words (outside CJK) and jieba's English
 * stop words are dropped.
 */
import { indexWords } from "../store/knowledge.js";

// jieba.analyse's default stop words.
const STOP = new Set(
  "the of is and to in that we for an are by be as on with can if from which you it this then at have all not one has or".split(
    " ",
  ),
);

// ICU's dictionary splits some CJK words into single characters (惯性 → 惯 | 性), so only other scripts lose their
// one-character words.
const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;

function keywords(text: string): Set<string> {
  return new Set(indexWords(text).filter((w) => (w.length >= 2 || CJK.test(w)) && !STOP.has(w)));
}

/** Each text's keyword score for `query`, in [0, 1]; 0 where they share no keyword. */
export function keywordScores(query: string, texts: string[]): number[] {
  const docs = texts.map(keywords);
  const df = new Map<string, number>();
  for (const d of docs) for (const k of d) df.set(k, (df.get(k) ?? 0) + 1);
  const idf = (k: string) => {
    const n = df.get(k);
    return n === undefined ? 0 : Math.log((1 + docs.length) / (1 + n)) + 1;
  };
  const q = [...keywords(query)];
  const qNorm = Math.sqrt(q.reduce((s, k) => s + idf(k) ** 2, 0));
  return docs.map((d) => {
    let dot = 0;
    for (const k of q) if (d.has(k)) dot += idf(k) ** 2;
    let dNorm = 0;
    for (const k of d) dNorm += idf(k) ** 2;
    const denominator = qNorm * Math.sqrt(dNorm);
    return denominator === 0 ? 0 : dot / denominator;
  });
}
