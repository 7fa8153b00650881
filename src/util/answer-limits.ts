/**
 * How much of one model answer is read, wherever an answer enters (the repair loop, the edit reader, the
 * LLM service's JSON mode). Reading is super-linear in places (repairs, matching, regex scans), so a
 * runaway answer is refused by its size before any of that runs. Real answers are far smaller: the
 * largest of eight models' Chat2Workflow answers is under 90 KB with 21 nodes and 27 edges; the largest
 * Dify file in the corpus has 110 edges.
 */

/** Characters of answer text read at all (a 10 MB answer is a model looping, not a workflow). */
export const MAX_ANSWER_CHARS = 1_000_000;
/** Nodes read from one answer: a real workflow has tens, Dify's largest hundreds. */
export const MAX_ANSWER_NODES = 500;
/** Edges read from one answer: four per node at the node cap, far over any real workflow. */
export const MAX_ANSWER_EDGES = 2_000;

/** Why `text` is too long to read, or undefined. */
export function answerTooLong(text: string): string | undefined {
  if (text.length <= MAX_ANSWER_CHARS) return undefined;
  return `the answer is ${text.length} characters; at most ${MAX_ANSWER_CHARS} are read from one answer`;
}

const lengthOf = (v: unknown, key: string): number => {
  const list =
    v !== null && typeof v === "object" && Object.hasOwn(v, key) ? (v as Record<string, unknown>)[key] : undefined;
  return Array.isArray(list) ? list.length : 0;
};

/** Why a compact workflow has too many nodes or edges to read, or undefined. */
export function graphTooLarge(compact: unknown): string | undefined {
  const nodes = lengthOf(compact, "nodes_info");
  if (nodes > MAX_ANSWER_NODES)
    return `the workflow has ${nodes} nodes; at most ${MAX_ANSWER_NODES} are read from one answer`;
  const edges = lengthOf(compact, "edges");
  if (edges > MAX_ANSWER_EDGES)
    return `the workflow has ${edges} edges; at most ${MAX_ANSWER_EDGES} are read from one answer`;
  return undefined;
}
