import type { Diagnostic } from "../ir/diagnostics.js";
import type { NodeTypes } from "../ir/registry.js";
import type { AppMode, Workflow } from "../ir/workflow.js";
import { BURDEN_THRESHOLDS, type BurdenReport, type BurdenThresholds, computeBurden } from "./burden/burden.js";
import { DiagnosticSink, type SeverityOverrides } from "./codes.js";
import { checkDataflow } from "./dataflow.js";
import { checkModes } from "./modes.js";
import { prepareGraph } from "./prepare.js";
import { collectReads } from "./reads.js";
import { Resolver } from "./resolve.js";
import { checkRules } from "./rules.js";
import { checkTemplates } from "./templates.js";

export interface AnalyseOptions {
  /** Analyse as this app mode instead of workflow.mode. */
  mode?: AppMode;
  /** Change a code's severity, or silence it with "off". */
  severities?: SeverityOverrides;
  /** Term bound of the join guards (default 64); beyond it joins use plain intersection. */
  maxGuardTerms?: number;
  thresholds?: Partial<BurdenThresholds>;
}

export interface AnalysisResult {
  diagnostics: Diagnostic[];
  burden: BurdenReport;
}

const SEVERITY_RANK = { error: 0, warning: 1, info: 2 } as const;

/**
 * Static analysis of a workflow: well-formedness, dataflow with availability at joins, types,
 * templates, node-type rules, and the burden report. Never throws on a bad workflow; every problem
 * is a diagnostic. `types` are the node types it reads the workflow against (src/nodes' `nodeCatalogue`).
 */
export function analyse(workflow: Workflow, types: NodeTypes, opts: AnalyseOptions = {}): AnalysisResult {
  const sink = new DiagnosticSink(opts.severities);
  const mode: AppMode = opts.mode ?? (workflow?.mode === "advanced-chat" ? "advanced-chat" : "workflow");
  const { g, reached } = prepareGraph(workflow, mode, types, sink);
  checkModes(g, sink);
  checkTemplates(g, sink);
  const resolver = new Resolver(g);
  const reads = collectReads(g);
  const df = checkDataflow(g, reads, resolver, reached, sink, opts.maxGuardTerms ?? 64);
  checkRules(g, resolver, sink);
  const order = new Map(g.nodes.map((n) => [n.id, n.idx]));
  const diagnostics = sink.list
    .map((d, i) => ({ d, i }))
    .sort(
      (a, b) =>
        SEVERITY_RANK[a.d.severity] - SEVERITY_RANK[b.d.severity] ||
        (order.get(a.d.nodeId ?? "") ?? -1) - (order.get(b.d.nodeId ?? "") ?? -1) ||
        a.i - b.i,
    )
    .map((x) => x.d);
  // The burden report adds no diagnostic and most callers (`weft run`, validation) read only the diagnostics:
  // it is computed the first time it is read, then kept.
  const thresholds = { ...BURDEN_THRESHOLDS, ...opts.thresholds };
  let burden: BurdenReport | undefined;
  return {
    diagnostics,
    get burden() {
      burden ??= computeBurden(g, df, thresholds);
      return burden;
    },
  };
}

export { type AvailableValue, availableAt } from "./available.js";
export type { BurdenRegion, BurdenReport, BurdenThresholds, NodeBurden, WorkflowBurden } from "./burden/burden.js";
export { BURDEN_THRESHOLDS, worstRegions } from "./burden/burden.js";
export { ARRAY_ITEMS, CHARS_PER_TOKEN, estimateTokens, TOKEN_ESTIMATES } from "./burden/estimate.js";
export { ANALYSIS_CODES, modeCode, type SeverityOverrides } from "./codes.js";
export { DIFY_RUNNABLE_CODES, type RunGate, runGate } from "./runnable.js";
export { jinjaSyntaxError } from "./templates.js";
