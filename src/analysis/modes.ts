import { type DiagnosticSink, modeCode } from "./codes.js";
import type { AnalysisGraph } from "./graph.js";

/** Node types restricted to some app modes (def.modes): end is workflow-only, answer chat-only. */
export function checkModes(g: AnalysisGraph, sink: DiagnosticSink): void {
  for (const n of g.nodes) {
    const modes = n.def?.modes;
    if (!modes || modes.includes(g.mode)) continue;
    const alt = n.def?.exit
      ? ` (${g.mode === "workflow" ? "workflow apps end with end nodes" : "chat apps reply with answer nodes"})`
      : "";
    sink.add(
      modeCode(n.def!.type, g.mode),
      `${n.node.type} node is not allowed in ${g.mode} apps${alt}; allowed in ${modes.join(", ")}`,
      {
        nodeId: n.id,
        field: "type",
      },
    );
  }
}
