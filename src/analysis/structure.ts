import type { DiagnosticSink } from "./codes.js";
import { type AnalysisGraph, ROOT } from "./graph.js";

/** Node-level well-formedness: known types, valid configs, entries and container starts in place. */
export function checkNodes(g: AnalysisGraph, sink: DiagnosticSink): void {
  for (const n of g.nodes) {
    if (!n.def) {
      sink.add("node.unknown_type", `node type "${n.node.type}" is not known`, { nodeId: n.id, field: "type" });
      continue;
    }
    for (const d of n.desc.configDiagnostics) sink.push(d);
    const cs = n.def.containerStart;
    if (cs) {
      const parent = n.scope === ROOT ? undefined : g.nodes[n.scope];
      const parentType = parent ? (parent.def?.type ?? parent.node.type) : undefined;
      if (parentType !== cs.containerType) {
        sink.add(
          "container.bad_nesting",
          `${n.node.type} must be inside a ${cs.containerType} node${parent ? `, not ${parent.node.type} "${parent.id}"` : ""}`,
          { nodeId: n.id, field: "parentId" },
        );
      }
    }
    if (n.def.entry && n.scope !== ROOT) {
      sink.add("container.bad_nesting", `${n.node.type} node cannot be inside a container`, {
        nodeId: n.id,
        field: "parentId",
      });
    }
  }
}

/** Trigger entries (trigger-webhook, trigger-schedule, trigger-plugin): several may share one workflow. */
export const isTriggerEntry = (g: AnalysisGraph, idx: number) =>
  g.nodes[idx]!.def?.type.startsWith("trigger-") === true;

/**
 * Find each scope's entry: the root start node, or (Dify 1.10+) the root's trigger nodes, several allowed but
 * never beside a start node; a container's start node (or legacy start_node_id).
 */
export function findEntries(g: AnalysisGraph, sink: DiagnosticSink): void {
  const root = g.scopes.get(ROOT)!;
  const entries = root.members.filter((m) => g.nodes[m]!.def?.entry);
  const triggers = entries.filter((m) => isTriggerEntry(g, m));
  const starts = entries.filter((m) => !isTriggerEntry(g, m));
  if (entries.length === 0) sink.add("graph.no_start", "the workflow has no start node and no trigger node");
  else if (starts.length === 0) root.entry = triggers[0];
  else {
    root.entry = starts[0];
    for (const extra of starts.slice(1)) {
      sink.add("graph.multiple_start", `more than one start node (first is "${g.nodes[starts[0]!]!.id}")`, {
        nodeId: g.nodes[extra]!.id,
      });
    }
    for (const t of triggers) {
      sink.add(
        "graph.start_and_trigger",
        `trigger node "${g.nodes[t]!.id}" beside start node "${g.nodes[starts[0]!]!.id}": a workflow starts either from a start node or from trigger nodes; remove one of them`,
        { nodeId: g.nodes[t]!.id, field: "type" },
      );
    }
  }
  for (const [c, scope] of g.scopes) {
    if (c === ROOT || scope.opaque) continue;
    const container = g.nodes[c]!;
    const startType = container.def?.container?.startType;
    const typed = scope.members.filter((m) => {
      const t = g.nodes[m]!.def?.type;
      return t !== undefined && t === startType;
    });
    if (typed.length > 0) {
      scope.entry = typed[0];
      for (const extra of typed.slice(1)) {
        sink.add("container.multiple_start", `container "${container.id}" has more than one ${startType} node`, {
          nodeId: g.nodes[extra]!.id,
        });
      }
      continue;
    }
    // Legacy layout (DSL <= 0.1.2): no start node; start_node_id names the first real child.
    const legacy = container.node.config?.start_node_id;
    const li = typeof legacy === "string" ? g.byId.get(legacy) : undefined;
    if (li !== undefined && g.nodes[li]!.scope === c) {
      scope.entry = li;
      continue;
    }
    const flagged = scope.members.find((m) => {
      const cfg = g.nodes[m]!.node.config;
      return cfg?.isIterationStart === true || cfg?.isLoopStart === true;
    });
    if (flagged !== undefined) {
      scope.entry = flagged;
      continue;
    }
    sink.add("container.missing_start", `container "${container.id}" has no ${startType ?? "start"} node in its body`, {
      nodeId: container.id,
      field: "start_node_id",
    });
  }
}
