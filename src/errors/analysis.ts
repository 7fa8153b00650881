/** An analyser diagnostic: its default severity, what it means, and (where the area's hint is not enough) a fix. */
export interface AnalysisEntry {
  severity: "error" | "warning";
  summary: string;
  hint?: string;
}

/**
 * Every diagnostic code the analyser emits itself, with its default severity. Node types add their own codes
 * through `def.rules`; those keep the severity the rule gives and are listed with the other entries.
 */
export const ANALYSIS_ENTRIES = {
  "node.invalid": { severity: "error", summary: "a node without a usable id or type" },
  "node.duplicate_id": { severity: "error", summary: "two nodes share an id" },
  "node.unknown_type": { severity: "error", summary: "no registered node type has this name" },
  "config.invalid": { severity: "error", summary: "the node's config does not match its type's schema" },
  "edge.dangling": { severity: "error", summary: "an edge names a node that does not exist" },
  "edge.bad_port": { severity: "error", summary: "an edge leaves from a port its source node does not have" },
  "edge.cross_container": { severity: "error", summary: "an edge crosses a container boundary" },
  "edge.into_start": { severity: "error", summary: "an edge enters a start node" },
  "edge.duplicate": { severity: "warning", summary: "the same edge is listed twice" },
  "container.bad_nesting": {
    severity: "error",
    summary: "a parentId that is not a container, or a container start outside its container",
  },
  "container.start_edge": { severity: "error", summary: "an edge between a container and its own start node" },
  "container.missing_start": { severity: "error", summary: "a container body without a start node" },
  "container.multiple_start": { severity: "error", summary: "a container body with several start nodes" },
  "graph.no_start": { severity: "error", summary: "the workflow has no entry node" },
  "graph.multiple_start": { severity: "error", summary: "the workflow has more than one entry node" },
  "graph.start_and_trigger": {
    severity: "error",
    summary: "a workflow with both a start node and trigger nodes (Dify: one or the other)",
  },
  "graph.cycle": { severity: "error", summary: "a cycle outside a loop container" },
  "graph.unreachable": { severity: "error", summary: "a node no path from the start reaches" },
  "graph.dead_end": { severity: "warning", summary: "a node from which no exit is reachable" },
  "mode.no_exit": { severity: "error", summary: "no exit node for the app mode" },
  "ref.missing_node": { severity: "error", summary: "a selector names a node that does not exist" },
  "ref.missing_output": { severity: "error", summary: "a selector names an output its node does not declare" },
  "ref.not_available": { severity: "error", summary: "a value not produced on every path to its reader" },
  "ref.out_of_scope": { severity: "error", summary: "a read of a value inside a container from outside it" },
  "type.mismatch": { severity: "error", summary: "a value's declared type does not fit the slot" },
  "template.unresolved": { severity: "error", summary: "a {{#…#}} reference that does not resolve" },
  "template.malformed_ref": {
    severity: "warning",
    summary: "text that looks like a reference but does not lex as one",
  },
  "jinja.syntax": { severity: "error", summary: "a Jinja2 template that does not parse" },
  "analysis.rule_failed": { severity: "error", summary: "a node type's static rule threw" },
} as const satisfies Record<string, AnalysisEntry>;
