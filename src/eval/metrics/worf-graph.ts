/** WorfBench workflow graphs: the structured shape, validation, and the upstream textual format parser. */
import { MetricCodes, MetricInputError } from "./errors.js";

/** Nodes are texts; edges are [source, target] indices into `nodes`. */
export interface WorfGraph {
  nodes: string[];
  edges: Array<[number, number]>;
}

export const START = "START";
export const END = "END";

/**
 * Parses WorfBench's textual workflow (`Node:\n1: ...\nEdge: (START,1) (1,2) (2,END)`) exactly as the
 * upstream evaluator does; returns null where upstream treats the text as unparseable.
 * - no substring "Node" → null;
 * - nodes: every `<digits>[:.] <rest of line>` anywhere in the text, stripped, in order of appearance;
 *   the printed numbering is ignored; "START" is prepended and "END" appended (so END = last index);
 * - edges: every `( <digits|START> , <digits|END> )`; START → 0, END → nodes.length-1; no edge → null.
 *   `(1,START)` does not match at all. Indices are kept as written, so they may be out of range.
 * Duplicate edges are kept here (scorers deduplicate, as a networkx DiGraph would).
 */
export function parseWorfbenchText(text: string): WorfGraph | null {
  if (!text.includes("Node")) return null;
  const nodes = [START];
  // Python's `.` stops only at \n (JS's also at \r, \u2028, \u2029), and Python's \d is Unicode-aware.
  for (const m of text.matchAll(/\p{Nd}+[:.] ([^\n]+)/gu)) nodes.push(pyStrip(m[1]!));
  nodes.push(END);
  const edges: Array<[number, number]> = [];
  for (const m of text.matchAll(/\(\s*(\d+|START)\s*,\s*(\d+|END)\s*\)/g)) {
    const a = m[1] === "START" ? 0 : Number.parseInt(m[1]!, 10);
    const b = m[2] === "END" ? nodes.length - 1 : Number.parseInt(m[2]!, 10);
    edges.push([a, b]);
  }
  if (edges.length === 0) return null;
  return { nodes, edges };
}

// Python's str.strip() also removes U+001C..U+001F and U+0085, which JS's trim() keeps.
const PY_SPACE = new Set([..."\u001c\u001d\u001e\u001f\u0085"]);
function pyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  const isSpace = (ch: string) => /\s/u.test(ch) || PY_SPACE.has(ch);
  while (a < b && isSpace(s[a]!)) a++;
  while (b > a && isSpace(s[b - 1]!)) b--;
  return s.slice(a, b);
}

/**
 * Accepts a structured graph or WorfBench text. Structured graphs are validated (texts are strings,
 * edges are integer pairs); `role` names the argument in errors. Text that upstream cannot parse → null.
 */
export function toWorfGraph(input: WorfGraph | string, role: "pred" | "gold"): WorfGraph | null {
  if (typeof input === "string") return parseWorfbenchText(input);
  if (!input || !Array.isArray(input.nodes) || !Array.isArray(input.edges)) {
    throw new MetricInputError(
      MetricCodes.invalidGraph,
      `${role}: expected {nodes: string[], edges: [number, number][]}`,
      {
        field: role,
      },
    );
  }
  for (const [i, t] of input.nodes.entries()) {
    if (typeof t !== "string") {
      throw new MetricInputError(MetricCodes.invalidGraph, `${role}.nodes[${i}] is not a string`, {
        field: `${role}.nodes`,
      });
    }
  }
  for (const [i, e] of input.edges.entries()) {
    if (!Array.isArray(e) || e.length !== 2 || !Number.isInteger(e[0]) || !Number.isInteger(e[1])) {
      throw new MetricInputError(MetricCodes.invalidGraph, `${role}.edges[${i}] is not an [int, int] pair`, {
        field: `${role}.edges`,
      });
    }
  }
  return { nodes: [...input.nodes], edges: input.edges.map(([a, b]) => [a, b] as [number, number]) };
}

/** Edges with both ends in range, without duplicates, first occurrence order kept. */
export function cleanEdges(g: WorfGraph, opts: { dropSelfLoops: boolean }): Array<[number, number]> {
  const n = g.nodes.length;
  const seen = new Set<number>();
  const out: Array<[number, number]> = [];
  for (const [a, b] of g.edges) {
    if (a < 0 || b < 0 || a >= n || b >= n) continue;
    if (opts.dropSelfLoops && a === b) continue;
    const k = a * n + b;
    if (seen.has(k)) continue;
    seen.add(k);
    out.push([a, b]);
  }
  return out;
}

export function assertEdgesInRange(g: WorfGraph, role: string): void {
  const n = g.nodes.length;
  for (const [a, b] of g.edges) {
    if (a < 0 || b < 0 || a >= n || b >= n) {
      throw new MetricInputError(MetricCodes.invalidGraph, `${role}: edge (${a},${b}) is outside nodes 0..${n - 1}`, {
        field: `${role}.edges`,
        edge: [a, b],
      });
    }
  }
}
