import { cyclicComponents } from "../util/scc.js";
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

/** Components of the scope that hold a cycle, by node index. */
function stronglyConnected(g: AnalysisGraph, scope: Scope): number[][] {
  return cyclicComponents(
    scope.members,
    (v) => g.nodes[v]!.out.map((e) => e.target),
    (a, b) => a - b,
  );
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
