/**
 * Which node of a model's answer is which node of the workflow it was shown. Models mostly keep the
 * compact ids they were given, but some renumber (inserting a node as "3" and shifting the rest), so ids
 * alone are not trusted: nodes are matched first by what they are (type and content with node ids left
 * out), then by title, then by id, then by similarity and neighbours. What stays unmatched is added
 * (answer) or removed (shown).
 */

export interface MatchNode {
  cid: string;
  type: string;
  title?: string;
  /** The node's content with every node id blanked out: equal content, equal signature. */
  signature: string;
  /** Top-level config fields (same blanking), for similarity; fields every node of the type has are left out. */
  fields: Map<string, string>;
  /** Compact id of the container, if any. */
  parent?: string;
  /** Compact ids of the nodes it has edges with. */
  neighbors: Set<string>;
  /** An entry or exit (start, end, answer): a workflow's fixed points, matched by type when unique. */
  terminal?: boolean;
}

export interface Matching {
  /** Answer compact id → shown compact id. */
  pairs: Map<string, string>;
  /** Answer ids matched to a shown node of another type (same id): the node was retyped in place. */
  retyped: Set<string>;
}

/** One matching pass over the still-unmatched nodes of one level; `ok` says whose containers correspond. */
interface Round {
  shown: MatchNode[];
  answer: MatchNode[];
  m: Matching;
  ok(s: MatchNode, a: MatchNode): boolean;
}
type Pass = (r: Round) => void;

function fieldSimilarity(a: MatchNode, b: MatchNode): number {
  const keys = new Set([...a.fields.keys(), ...b.fields.keys()]);
  if (keys.size === 0) return 1;
  let same = 0;
  for (const k of keys) if (a.fields.get(k) === b.fields.get(k)) same++;
  return same / keys.size;
}

/** Share of the two nodes' neighbours that correspond under the matching so far. */
function neighborAgreement(shown: MatchNode, answer: MatchNode, m: Matching): number {
  const mapped = new Set([...answer.neighbors].flatMap((n) => (m.pairs.has(n) ? [m.pairs.get(n)!] : [])));
  const union = new Set([...shown.neighbors, ...mapped]);
  if (union.size === 0) return 0;
  let both = 0;
  for (const n of mapped) if (shown.neighbors.has(n)) both++;
  return both / union.size;
}

const taken = (m: Matching) => new Set(m.pairs.values());

function pair(r: Round, a: MatchNode, s: MatchNode): boolean {
  if (r.m.pairs.has(a.cid) || taken(r.m).has(s.cid) || !r.ok(s, a)) return false;
  r.m.pairs.set(a.cid, s.cid);
  if (a.type !== s.type) r.m.retyped.add(a.cid);
  return true;
}

const sameId: Pass = (r) => {
  for (const a of r.answer) {
    const s = r.shown.find((x) => x.cid === a.cid && x.type === a.type && x.signature === a.signature);
    if (s) pair(r, a, s);
  }
};

/** Equal content: paired by id, title and neighbours, then in order. */
const sameContent: Pass = (r) => {
  for (const a of r.answer) {
    const used = taken(r.m);
    const score = (y: MatchNode) =>
      (y.cid === a.cid ? 4 : 0) + (a.title !== undefined && y.title === a.title ? 2 : 0) + neighborAgreement(y, a, r.m);
    const options = r.shown.filter((y) => y.signature === a.signature && !used.has(y.cid) && r.ok(y, a));
    options.sort((p, q) => score(q) - score(p));
    if (options[0]) pair(r, a, options[0]);
  }
};

/** Same type and title, when the title is unique on both sides. */
const sameTitle: Pass = (r) => {
  for (const a of r.answer) {
    if (a.title === undefined) continue;
    const s = r.shown.filter((x) => x.type === a.type && x.title === a.title);
    const rivals = r.answer.filter((x) => x.type === a.type && x.title === a.title);
    if (s.length === 1 && rivals.length === 1) pair(r, a, s[0]!);
  }
};

/** Same id and type (an edit in place), unless the answer gave the node another node's title. */
const sameIdAndType: Pass = (r) => {
  for (const a of r.answer) {
    const s = r.shown.find((x) => x.cid === a.cid && x.type === a.type);
    if (s && (a.title === undefined || a.title === s.title || !r.shown.some((x) => x.title === a.title))) pair(r, a, s);
  }
};

const similar: Pass = (r) => {
  const cands: Array<{ a: MatchNode; s: MatchNode; score: number }> = [];
  for (const a of r.answer)
    for (const s of r.shown) {
      if (s.type !== a.type || !r.ok(s, a)) continue;
      const f = fieldSimilarity(s, a);
      const n = neighborAgreement(s, a, r.m);
      if (f >= 0.5 || n >= 0.5) cands.push({ a, s, score: f + n + (s.cid === a.cid ? 0.5 : 0) });
    }
  cands.sort((x, y) => y.score - x.score);
  for (const c of cands) pair(r, c.a, c.s);
};

/**
 * The last unmatched node of its type on each side: the same node changed, if it is an entry or exit,
 * or shares a neighbour or a field with its counterpart.
 */
const lastOfType: Pass = (r) => {
  const used = taken(r.m);
  for (const a of r.answer) {
    if (r.m.pairs.has(a.cid)) continue;
    const s = r.shown.filter((x) => x.type === a.type && !used.has(x.cid));
    const rivals = r.answer.filter((x) => x.type === a.type && !r.m.pairs.has(x.cid));
    if (s.length !== 1 || rivals.length !== 1) continue;
    if (a.terminal || neighborAgreement(s[0]!, a, r.m) > 0 || fieldSimilarity(s[0]!, a) > 0) pair(r, a, s[0]!);
  }
};

/** Same id, another type: the node was replaced in place. */
const retypedInPlace: Pass = (r) => {
  for (const a of r.answer) {
    const s = r.shown.find((x) => x.cid === a.cid);
    if (s) pair(r, a, s);
  }
};

const PASSES: Pass[] = [sameId, sameContent, sameTitle, sameIdAndType, similar, lastOfType, retypedInPlace];

export function matchNodes(shown: MatchNode[], answer: MatchNode[]): Matching {
  const m: Matching = { pairs: new Map(), retyped: new Set() };
  const index = { s: new Map(shown.map((n) => [n.cid, n])), a: new Map(answer.map((n) => [n.cid, n])) };
  const depth = (n: MatchNode, side: "s" | "a"): number => {
    let d = 0;
    for (let p = n.parent; p !== undefined && d < 50; p = index[side].get(p)?.parent) d++;
    return d;
  };
  // Containers first: a body's nodes can only match when their containers did.
  const ok = (s: MatchNode, a: MatchNode) =>
    (s.parent === undefined && a.parent === undefined) ||
    (a.parent !== undefined && m.pairs.get(a.parent) === s.parent);
  const maxDepth = Math.max(0, ...shown.map((n) => depth(n, "s")), ...answer.map((n) => depth(n, "a")));
  for (let d = 0; d <= maxDepth; d++) {
    const round: Round = {
      shown: shown.filter((n) => depth(n, "s") === d),
      answer: answer.filter((n) => depth(n, "a") === d),
      m,
      ok,
    };
    for (const pass of PASSES) pass(round);
  }
  return m;
}
