/**
 * Deterministic embeddings for tests and benches, served by the loopback replay model server: each word
 * hashed (FNV-1a) into one of `dim` dimensions, a bag of words, so texts sharing words are near. No local
 * embedding model is available here; these vectors measure the vector paths, not a model's semantics.
 */
import { type ReplayServer, reply } from "./replay-server.js";

export function hashedEmbedding(text: string, dim = 64): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const w of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    let h = 2166136261;
    for (const ch of w) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619);
    v[(h >>> 0) % dim]! += 1;
  }
  return v;
}

/** Make the replay server answer every embeddings request with hashed bag-of-words vectors. */
export function serveHashedEmbeddings(model: ReplayServer, dim = 64): void {
  model.when(
    (r) => r.api === "openai-embeddings",
    (r) => reply.embedding((r.body.input as string[]).map((t) => hashedEmbedding(t, dim))),
    {
      times: Infinity,
    },
  );
}
