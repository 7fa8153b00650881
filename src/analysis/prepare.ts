import type { NodeTypes } from "../ir/registry.js";
import type { AppMode, Workflow } from "../ir/workflow.js";
import type { DiagnosticSink } from "./codes.js";
import { checkCycles } from "./cycles.js";
import { checkEdges } from "./edges.js";
import { type AnalysisGraph, buildNodes } from "./graph.js";
import { checkReachability } from "./reachability.js";
import { checkNodes, findEntries } from "./structure.js";

/** The structural passes every later pass builds on: index, scopes, entries, edges, order, reachability. */
export function prepareGraph(
  workflow: Workflow,
  mode: AppMode,
  types: NodeTypes,
  sink: DiagnosticSink,
): { g: AnalysisGraph; reached: Uint8Array } {
  const g = buildNodes(workflow, mode, types, sink);
  checkNodes(g, sink);
  findEntries(g, sink);
  checkEdges(g, sink);
  checkCycles(g, sink);
  const { reached } = checkReachability(g, sink);
  return { g, reached };
}
