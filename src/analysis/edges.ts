import type { DiagnosticSink } from "./codes.js";
import type { AEdge, AnalysisGraph } from "./graph.js";

/**
 * Validate every edge and keep the usable ones (both ends exist, same scope, not repeated). Edges
 * from a port the node lacks stay usable: the engine would simply never take them, and dropping
 * them would bury the real error under unreachability reports.
 */
export function checkEdges(g: AnalysisGraph, sink: DiagnosticSink): void {
  const seen = new Set<string>();
  const raw = Array.isArray(g.workflow.edges) ? g.workflow.edges : [];
  for (const [i, e] of raw.entries()) {
    if (!e || typeof e !== "object") continue;
    const edgeId = typeof e.id === "string" ? e.id : undefined;
    const port = typeof e.sourcePort === "string" && e.sourcePort !== "" ? e.sourcePort : "source";
    const where = { edgeId, field: `edges[${i}]` };
    // An edge naming a duplicated id is ambiguous; node.duplicate_id already says why it is ignored.
    if (g.duplicateIds.has(e.source) || g.duplicateIds.has(e.target)) continue;
    const s = typeof e.source === "string" ? g.byId.get(e.source) : undefined;
    const t = typeof e.target === "string" ? g.byId.get(e.target) : undefined;
    if (s === undefined || t === undefined) {
      const missing = [s === undefined ? `source "${e.source}"` : "", t === undefined ? `target "${e.target}"` : ""]
        .filter(Boolean)
        .join(" and ");
      sink.add("edge.dangling", `edge ${e.source} → ${e.target}: ${missing} does not exist`, {
        ...where,
        nodeId: s !== undefined ? e.source : t !== undefined ? e.target : undefined,
      });
      continue;
    }
    const src = g.nodes[s]!;
    const tgt = g.nodes[t]!;
    if (src.scope !== tgt.scope) {
      const startOf = (container: number, child: number) =>
        g.nodes[child]!.scope === container &&
        (g.scopes.get(container)?.entry === child || g.nodes[child]!.def?.containerStart !== undefined);
      if (startOf(s, t) || startOf(t, s)) {
        sink.add(
          "container.start_edge",
          `edge ${src.id} → ${tgt.id} joins a container and its own start node; the body starts by itself`,
          { ...where, nodeId: src.id },
        );
      } else {
        sink.add(
          "edge.cross_container",
          `edge ${src.id} → ${tgt.id} crosses a container boundary (${scopeName(g, src.scope)} → ${scopeName(g, tgt.scope)})`,
          { ...where, nodeId: src.id },
        );
      }
      continue;
    }
    if (src.def && src.desc.known && !src.desc.ports.includes(port)) {
      const ports = src.desc.ports.length ? src.desc.ports.map((p) => `"${p}"`).join(", ") : "none";
      sink.add(
        "edge.bad_port",
        `edge ${src.id} → ${tgt.id} leaves port "${port}"; ${src.node.type} has ports ${ports}`,
        {
          ...where,
          nodeId: src.id,
        },
      );
    }
    if (tgt.def?.entry || tgt.def?.containerStart || g.scopes.get(tgt.scope)?.entry === t) {
      sink.add("edge.into_start", `edge ${src.id} → ${tgt.id} enters a start node`, { ...where, nodeId: tgt.id });
    }
    const key = `${s}\u0000${port}\u0000${t}`;
    if (seen.has(key)) {
      sink.add("edge.duplicate", `edge ${src.id} (${port}) → ${tgt.id} is listed twice`, { ...where, nodeId: src.id });
      continue;
    }
    seen.add(key);
    const ae: AEdge = { idx: g.edges.length, edge: e, source: s, target: t, port, back: false };
    g.edges.push(ae);
    src.out.push(ae);
    tgt.in.push(ae);
  }
}

function scopeName(g: AnalysisGraph, scope: number): string {
  return scope < 0 ? "top level" : `inside "${g.nodes[scope]!.id}"`;
}
