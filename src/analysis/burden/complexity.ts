import type { ANode, AnalysisGraph } from "../graph.js";

export interface Decisions {
  /** Extra branch ports: a node with k ports chooses among k. */
  ports: number;
  /** Extra conditions joined by and/or in condition lists (if-else cases, loop breaks, filters). */
  conditions: number;
  /** Branching constructs in code text. */
  code: number;
  /** Conditional words in LLM prompts (the model is asked to branch). */
  prompt: number;
  /** if/elif/for blocks in Jinja2 texts. */
  jinja: number;
}

export function totalDecisions(d: Decisions): number {
  return d.ports + d.conditions + d.code + d.prompt + d.jinja;
}

/** Decision points of one node, read from what the registry describes plus generic config keys. */
export function nodeDecisions(n: ANode): Decisions {
  const ports = Math.max(0, new Set(n.desc.ports).size - 1);
  const conditions = countConditionLists(n.node.config, 0);
  const code = typeof n.node.config?.code === "string" ? codeBranches(n.node.config.code as string) : 0;
  let prompt = 0;
  let jinja = 0;
  for (const t of n.desc.texts) {
    if (typeof t.text !== "string") continue;
    if (t.kind === "jinja2") jinja += (t.text.match(/\{%-?\s*(if|elif|for)\b/g) ?? []).length;
    else if (n.def?.category === "llm") prompt += conditionalWords(t.text);
  }
  return { ports, conditions, code, prompt, jinja };
}

/** Every array under a key named `conditions` adds (length − 1): each and/or is a decision. */
function countConditionLists(v: unknown, depth: number): number {
  if (depth > 8 || v === null || typeof v !== "object") return 0;
  let n = 0;
  if (Array.isArray(v)) {
    for (const x of v) n += countConditionLists(x, depth + 1);
    return n;
  }
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (k === "conditions" && Array.isArray(x)) n += Math.max(0, x.length - 1);
    n += countConditionLists(x, depth + 1);
  }
  return n;
}

/**
 * Branches in Python or JavaScript source: if/elif/else/for/while/case/catch/except keywords,
 * && / || / and / or operators and ternaries, after dropping comments and string literals. A lexical
 * count, not a parse: it is meant to rank nodes, not to be exact.
 */
export function codeBranches(src: string): number {
  const stripped = src
    .replace(/\/\*[\s\S]*?\*\//g, " ")
    .replace(/("""|''')[\s\S]*?\1/g, " ")
    .replace(/(["'`])(?:\\.|(?!\1)[^\\\n])*\1/g, '""')
    .replace(/(^|[^:])\/\/.*$/gm, "$1")
    .replace(/#.*$/gm, "");
  const keywords = stripped.match(/\b(if|elif|else|for|while|case|catch|except)\b/g) ?? [];
  const ops = stripped.match(/&&|\|\||\?\?|\b(and|or)\b/g) ?? [];
  const ternary = stripped.match(/(?<!\?)\?(?![.?:])/g) ?? [];
  return keywords.length + ops.length + ternary.length;
}

const CONDITIONAL = /\b(if|when|whenever|unless|otherwise|else|in case|depending on|whether)\b/gi;

export function conditionalWords(text: string): number {
  return (text.match(CONDITIONAL) ?? []).length;
}

/** McCabe over the graph: E − N + 2P summed over scopes, P the weakly connected components. */
export function graphCyclomatic(g: AnalysisGraph): { edges: number; nodes: number; components: number; value: number } {
  let edges = 0;
  let nodes = 0;
  let components = 0;
  const parent = new Int32Array(g.nodes.length).map((_, i) => i);
  const find = (x: number): number => {
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]!]!;
      x = parent[x]!;
    }
    return x;
  };
  for (const e of g.edges) {
    edges++;
    const a = find(e.source);
    const b = find(e.target);
    if (a !== b) parent[a] = b;
  }
  for (const n of g.nodes) {
    nodes++;
    if (find(n.idx) === n.idx) components++;
  }
  return { edges, nodes, components, value: edges - nodes + 2 * components };
}
