import { type DiagnosticSink, modeCode } from "./codes.js";
import type { AnalysisGraph } from "./graph.js";

/** Can an end node be reached from node `from` (within its scope)? */
function reachesEnd(g: AnalysisGraph, from: number): boolean {
  const seen = new Set<number>([from]);
  const todo = [from];
  while (todo.length > 0) {
    const u = todo.pop()!;
    for (const e of g.nodes[u]!.out) {
      if (seen.has(e.target)) continue;
      if (g.nodes[e.target]!.def?.type === "end") return true;
      seen.add(e.target);
      todo.push(e.target);
    }
  }
  return false;
}

/**
 * Node types restricted to some app modes (def.modes): end is workflow-only, answer chat-only. An answer
 * node followed by an end node in a workflow app is only a warning: Dify runs it (its text streams, the
 * result is still the end node's outputs).
 */
export function checkModes(g: AnalysisGraph, sink: DiagnosticSink): void {
  for (const n of g.nodes) {
    const modes = n.def?.modes;
    if (!modes || modes.includes(g.mode)) continue;
    const code = modeCode(n.def!.type, g.mode);
    if (g.mode === "workflow" && n.def!.type === "answer" && reachesEnd(g, n.idx)) {
      sink.add(
        code,
        "answer node in a workflow app: Dify runs it and streams its text, but the result of the run is the end node's outputs",
        { nodeId: n.id, field: "type" },
        "warning",
      );
      continue;
    }
    const alt = n.def?.exit
      ? ` (${g.mode === "workflow" ? "workflow apps end with end nodes" : "chat apps reply with answer nodes"})`
      : "";
    sink.add(code, `${n.node.type} node is not allowed in ${g.mode} apps${alt}; allowed in ${modes.join(", ")}`, {
      nodeId: n.id,
      field: "type",
    });
  }
}
