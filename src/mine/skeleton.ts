/**
 * The skeleton of tool-calling positions: a process tree reduced to what a workflow needs — call
 * positions (one tool, or a set of candidates), sequences, choices (with skips), parallel branches and
 * retry loops. Nested loops collapse into the outer retry loop (Weft loops do not nest here).
 */
import type { ProcessTree } from "./inductive.js";

export type Skeleton =
  | { kind: "call"; tools: string[] }
  | { kind: "seq"; items: Skeleton[] }
  /** A null branch means "skip" (a tau in the tree). */
  | { kind: "choice"; branches: Array<Skeleton | null> }
  | { kind: "parallel"; branches: Skeleton[] }
  | { kind: "retry"; body: Skeleton };

function isActivityChoice(t: ProcessTree): t is { kind: "xor"; children: ProcessTree[] } {
  return t.kind === "xor" && t.children.every((c) => c.kind === "activity");
}

function seq(items: Skeleton[]): Skeleton | null {
  const flat = items.flatMap((i) => (i.kind === "seq" ? i.items : [i]));
  if (flat.length === 0) return null;
  return flat.length === 1 ? flat[0]! : { kind: "seq", items: flat };
}

export function skeletonFromTree(t: ProcessTree, inLoop = false): Skeleton | null {
  switch (t.kind) {
    case "tau":
      return null;
    case "activity":
      return { kind: "call", tools: [t.label] };
    case "seq":
      return seq(t.children.map((c) => skeletonFromTree(c, inLoop)).filter((x): x is Skeleton => x !== null));
    case "xor": {
      const branches = t.children.map((c) => skeletonFromTree(c, inLoop));
      const real = branches.filter((b) => b !== null);
      if (real.length === 0) return null;
      if (real.length === 1 && branches.length === 1) return real[0]!;
      return { kind: "choice", branches };
    }
    case "and": {
      const branches = t.children.map((c) => skeletonFromTree(c, inLoop)).filter((x): x is Skeleton => x !== null);
      if (branches.length === 0) return null;
      return branches.length === 1 ? branches[0]! : { kind: "parallel", branches };
    }
    case "loop": {
      const [body, redo] = t.children;
      // A flower (any of several tools, repeatedly) is one position whose model picks among them.
      const doPart: Skeleton | null = isActivityChoice(body)
        ? { kind: "call", tools: body.children.map((c) => (c as { label: string }).label) }
        : skeletonFromTree(body, true);
      const redoPart = skeletonFromTree(redo, true);
      const inner = seq([doPart, redoPart].filter((x): x is Skeleton => x !== null));
      if (!inner) return null;
      return inLoop ? inner : { kind: "retry", body: inner };
    }
  }
}

/** Tool names in the skeleton, left to right. */
export function skeletonTools(s: Skeleton | null): string[] {
  if (!s) return [];
  switch (s.kind) {
    case "call":
      return s.tools;
    case "seq":
      return s.items.flatMap(skeletonTools);
    case "choice":
      return s.branches.flatMap(skeletonTools);
    case "parallel":
      return s.branches.flatMap(skeletonTools);
    case "retry":
      return skeletonTools(s.body);
  }
}
