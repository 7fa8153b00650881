import type { DiagnosticSink } from "./codes.js";
import type { AnalysisGraph, Scope } from "./graph.js";

/**
 * Dify graphs are DAGs: repetition is a loop container, never a back edge. Report each strongly
 * connected component once, then order every scope topologically with the cycle-closing (back)
 * edges marked, so the later passes still work on a broken graph.
 */
export function checkCycles(g: AnalysisGraph, sink: DiagnosticSink): void {
  for (const scope of g.scopes.values()) {
    for (const comp of stronglyConnected(g, scope)) {
      const ids = comp.map((i) => g.nodes[i]!.id);
      const shown = ids.length > 8 ? `${ids.slice(0, 8).join(" → ")} …(${ids.length} nodes)` : ids.join(" → ");
      sink.add("graph.cycle", `cycle through ${shown}; use a loop node to repeat steps`, { nodeId: ids[0] });
    }
    orderScope(g, scope);
  }
}

/** Tarjan's algorithm, iterative; returns components that hold a cycle (size > 1 or a self-edge). */
function stronglyConnected(g: AnalysisGraph, scope: Scope): number[][] {
  const index = new Map<number, number>();
  const low = new Map<number, number>();
  const onStack = new Set<number>();
  const stack: number[] = [];
  const out: number[][] = [];
  let counter = 0;
  for (const root of scope.members) {
    if (index.has(root)) continue;
    const work: Array<{ v: number; i: number }> = [{ v: root, i: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = g.nodes[frame.v]!.out;
      if (frame.i < edges.length) {
        const w = edges[frame.i++]!.target;
        if (!index.has(w)) {
          index.set(w, counter);
          low.set(w, counter++);
          stack.push(w);
          onStack.add(w);
          work.push({ v: w, i: 0 });
        } else if (onStack.has(w)) {
          low.set(frame.v, Math.min(low.get(frame.v)!, index.get(w)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.v, Math.min(low.get(parent.v)!, low.get(frame.v)!));
      if (low.get(frame.v) === index.get(frame.v)) {
        const comp: number[] = [];
        let w: number;
        do {
          w = stack.pop()!;
          onStack.delete(w);
          comp.push(w);
        } while (w !== frame.v);
        const selfLoop = comp.length === 1 && g.nodes[w]!.out.some((e) => e.target === w);
        if (comp.length > 1 || selfLoop) out.push(comp.sort((a, b) => a - b));
      }
    }
  }
  return out;
}

/** Reverse DFS postorder from the entry first; edges into a node still on the DFS path are back edges. */
function orderScope(g: AnalysisGraph, scope: Scope): void {
  const state = new Uint8Array(g.nodes.length); // 0 new, 1 on path, 2 done
  const post: number[] = [];
  const roots = scope.entry !== undefined ? [scope.entry, ...scope.members] : scope.members;
  for (const root of roots) {
    if (state[root] !== 0) continue;
    const work: Array<{ v: number; i: number }> = [{ v: root, i: 0 }];
    state[root] = 1;
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = g.nodes[frame.v]!.out;
      if (frame.i < edges.length) {
        const e = edges[frame.i++]!;
        const s = state[e.target];
        if (s === 1) e.back = true;
        else if (s === 0) {
          state[e.target] = 1;
          work.push({ v: e.target, i: 0 });
        }
        continue;
      }
      state[frame.v] = 2;
      post.push(frame.v);
      work.pop();
    }
  }
  scope.order = post.reverse();
}
