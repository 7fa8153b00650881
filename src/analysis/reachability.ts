import type { DiagnosticSink } from "./codes.js";
import { type AnalysisGraph, ROOT } from "./graph.js";
import { isTriggerEntry } from "./structure.js";

export interface Reachability {
  /** Reached from its scope's entry (nodes of unreached containers count as unreached). */
  reached: Uint8Array;
  /** Indices of the exits of the app mode at the top level (including containers that hold one). */
  exits: number[];
}

/** Exit nodes for the mode: def.exit and def.modes admits the mode. */
export function isModeExit(g: AnalysisGraph, idx: number): boolean {
  const def = g.nodes[idx]!.def;
  return !!def?.exit && (!def.modes || def.modes.includes(g.mode));
}

/**
 * Forward reachability from each scope's entry, and backward reachability from the exits at the top
 * level. Inside a container body every sink is the end of the body, so body nodes cannot be dead
 * ends on their own; the container is judged in its parent scope.
 */
export function checkReachability(g: AnalysisGraph, sink: DiagnosticSink): Reachability {
  const reached = new Uint8Array(g.nodes.length);
  for (const s of g.scopeOrder) {
    const scope = g.scopes.get(s)!;
    if (scope.opaque) continue;
    const containerReached = s === ROOT || reached[s] === 1;
    if (!containerReached || scope.entry === undefined) continue;
    // Every trigger of the root is an entry of its own (any of them may fire).
    const triggers = s === ROOT ? scope.members.filter((m) => isTriggerEntry(g, m)) : [];
    const queue = triggers.includes(scope.entry) ? triggers : [scope.entry];
    for (const q of queue) reached[q] = 1;
    for (let q = 0; q < queue.length; q++) {
      for (const e of g.nodes[queue[q]!]!.out) {
        if (!reached[e.target]) {
          reached[e.target] = 1;
          queue.push(e.target);
        }
      }
    }
    for (const m of scope.members) {
      // Extra start nodes are reported as graph.multiple_start already.
      if (!reached[m] && !(s === ROOT && g.nodes[m]!.def?.entry)) {
        const n = g.nodes[m]!;
        const from = s === ROOT ? "the start node" : `the start of container "${g.nodes[s]!.id}"`;
        sink.add("graph.unreachable", `${n.node.type} node "${n.node.title || n.id}" cannot be reached from ${from}`, {
          nodeId: n.id,
        });
      }
    }
  }

  // A container holding an exit (an answer inside an iteration) is an exit of its scope.
  const holdsExit = new Uint8Array(g.nodes.length);
  for (const n of g.nodes) {
    if (!isModeExit(g, n.idx)) continue;
    holdsExit[n.idx] = 1;
    let c = n.scope;
    while (c !== ROOT && !holdsExit[c]) {
      holdsExit[c] = 1;
      c = g.nodes[c]!.scope;
    }
  }
  const root = g.scopes.get(ROOT)!;
  const exits = root.members.filter((m) => holdsExit[m]);
  if (exits.length === 0) {
    const want = g.mode === "workflow" ? "an end node" : "an answer node";
    if (root.members.length > 0) sink.add("mode.no_exit", `a ${g.mode} app needs ${want}; none is present`);
    return { reached, exits };
  }
  const alive = new Uint8Array(g.nodes.length);
  const queue = [...exits];
  for (const x of exits) alive[x] = 1;
  for (let q = 0; q < queue.length; q++) {
    for (const e of g.nodes[queue[q]!]!.in) {
      if (!alive[e.source]) {
        alive[e.source] = 1;
        queue.push(e.source);
      }
    }
  }
  for (const m of root.members) {
    if (!alive[m] && reached[m]) {
      const n = g.nodes[m]!;
      sink.add("graph.dead_end", `no exit is reachable from ${n.node.type} node "${n.node.title || n.id}"`, {
        nodeId: n.id,
      });
    }
  }
  return { reached, exits };
}
