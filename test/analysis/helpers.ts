import { type AnalyseOptions, type AnalysisResult, analyse } from "../../src/analysis/index.js";
import type { Diagnostic } from "../../src/ir/diagnostics.js";
import type { NodeTypes } from "../../src/ir/registry.js";
import { type Workflow, type WorkflowInput, WorkflowSchema } from "../../src/ir/workflow.js";
import { nodeCatalogue } from "../../src/nodes/index.js";

type NodeIn = WorkflowInput["nodes"][number];
type EdgeIn = WorkflowInput["edges"][number];

export function n(id: string, type: string, config: Record<string, unknown> = {}, extra: Partial<NodeIn> = {}): NodeIn {
  return { id, type, title: id, config, ...extra };
}

export function e(source: string, target: string, sourcePort = "source"): EdgeIn {
  return { id: `${source}-${sourcePort}-${target}`, source, sourcePort, target };
}

/** Edges along a path: chain("a", "b", "c") = a→b, b→c. */
export function chain(...ids: string[]): EdgeIn[] {
  return ids.slice(1).map((t, i) => e(ids[i]!, t));
}

export function wf(
  mode: "workflow" | "advanced-chat",
  nodes: NodeIn[],
  edges: EdgeIn[],
  extra: Partial<WorkflowInput> = {},
): Workflow {
  return WorkflowSchema.parse({ name: "t", mode, nodes, edges, ...extra });
}

export const start = (vars: Array<[string, string]> = [["query", "paragraph"]]) =>
  n("start", "start", {
    variables: vars.map(([variable, type]) => ({ variable, label: variable, type, required: true })),
  });

export const end = (id: string, outputs: Array<[string, string[]]>) =>
  n(id, "end", { outputs: outputs.map(([variable, value_selector]) => ({ variable, value_selector })) });

export const tt = (id: string, vars: Array<[string, string[]]>, template?: string) =>
  n(id, "template-transform", {
    variables: vars.map(([variable, value_selector]) => ({ variable, value_selector })),
    template: template ?? vars.map(([v]) => `{{ ${v} }}`).join(" "),
  });

export const ifElse = (id: string, caseIds: string[], sel: string[] = ["start", "query"]) =>
  n(id, "if-else", {
    cases: caseIds.map((case_id) => ({
      case_id,
      logical_operator: "and",
      conditions: [{ variable_selector: sel, comparison_operator: "contains", value: case_id }],
    })),
  });

export const agg = (id: string, sels: string[][], output_type = "string") =>
  n(id, "variable-aggregator", { output_type, variables: sels });

export function run(w: Workflow, opts?: AnalyseOptions, types: NodeTypes = nodeCatalogue): AnalysisResult {
  return analyse(w, types, opts);
}

export function errors(r: AnalysisResult): Diagnostic[] {
  return r.diagnostics.filter((d) => d.severity === "error");
}

export function withCode(r: AnalysisResult, code: string): Diagnostic[] {
  return r.diagnostics.filter((d) => d.code === code);
}

export function show(r: AnalysisResult): string {
  return r.diagnostics
    .map((d) => `${d.severity} ${d.code} ${d.nodeId ?? ""} ${d.field ?? ""}: ${d.message}`)
    .join("\n");
}
