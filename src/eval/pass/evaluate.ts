/**
 * One answer through the pass stage: format (step_1_1), conversion and Dify round trip (step_1_2),
 * variable names (step_1_3), node selection and key nodes (the deterministic part of step_1_4), then
 * the stricter Weft analyser check, reported on its own.
 */
import { parseAnswer, type RepairRecord } from "../../authoring/repair/index.js";
import type { Diagnostic } from "../../ir/diagnostics.js";
import { checkAnalyser, checkConvert, checkFormat, checkSelection, checkVariables, type StepResult } from "./checks.js";
import type { Instruction } from "./dataset.js";

export const STEPS = ["format", "convert", "variables", "selection"] as const;
export type StepName = (typeof STEPS)[number];
/** The benchmark's names for the steps. */
export const STEP_LABEL: Record<StepName, string> = {
  format: "step_1_1",
  convert: "step_1_2",
  variables: "step_1_3",
  selection: "step_1_4",
};

export interface AnswerEvaluation {
  /** Results of the steps that ran; a step after a failed one does not run (as upstream). */
  steps: Partial<Record<StepName, StepResult>>;
  /** First failing step, in the benchmark's naming. */
  failStep?: string;
  /** Steps 1_1–1_3 passed (what the recorded verdicts can be compared on). */
  passed13: boolean;
  /** The paper's deterministic checks: 1_1–1_3 and the deterministic stand-in for 1_4. */
  passDeterministic: boolean;
  /** Analyser errors of the converted workflow (only when 1_2 passed). */
  analyserErrors: Diagnostic[];
  passAnalyserClean: boolean;
  repairs: RepairRecord[];
  /** What the judge sees, when 1_1 passed. */
  judgeInput?: { nodeSelection: string; designPrinciple: string; workflow: string };
  /** The Dify YAML the answer converts to, when step_1_2 passed (what upstream imports into Dify). */
  yaml?: string;
}

export interface EvaluateOptions {
  repair?: boolean;
  /** Node types the previous round's workflow used (a round-k selection may be written as a delta on it). */
  previousTypes?: readonly string[];
  /** Completion params for the model nodes the converter fills in (upstream fidelity, R7). */
  completionParams?: Record<string, unknown>;
  /** Accept what upstream's converter accepts (upstream fidelity, R1; see CompactOptions.upstreamConverter). */
  upstreamConverter?: boolean;
}

export function evaluateAnswer(text: string, ins: Instruction, opts: EvaluateOptions = {}): AnswerEvaluation {
  const parsed = parseAnswer(text, { repair: opts.repair });
  const steps: AnswerEvaluation["steps"] = {};
  const out: AnswerEvaluation = {
    steps,
    passed13: false,
    passDeterministic: false,
    analyserErrors: [],
    passAnalyserClean: false,
    repairs: parsed.repairs,
  };
  const fail = (s: StepName) => {
    out.failStep = STEP_LABEL[s];
    return out;
  };
  steps.format = checkFormat(parsed);
  if (!steps.format.ok) return fail("format");
  out.judgeInput = {
    nodeSelection: parsed.sections.nodeSelection ?? "",
    designPrinciple: parsed.sections.designPrinciple ?? "",
    // The repaired workflow is what gets converted, so it is also what the judge should read.
    workflow:
      opts.repair && parsed.compact ? JSON.stringify(parsed.compact, null, 2) : (parsed.sections.workflow ?? ""),
  };
  // Parsed JSON that is no workflow object fails conversion, as it does upstream.
  const conv =
    parsed.json === undefined
      ? { ok: false, diagnostics: parsed.diagnostics, workflow: undefined }
      : checkConvert(parsed.json, ins.key, {
          completionParams: opts.completionParams,
          upstreamConverter: opts.upstreamConverter,
        });
  steps.convert = { ok: conv.ok, diagnostics: conv.diagnostics };
  if (conv.workflow) {
    const a = checkAnalyser(conv.workflow);
    out.analyserErrors = a.diagnostics;
  }
  if (!conv.ok) return fail("convert");
  if ("yaml" in conv && conv.yaml) out.yaml = conv.yaml;
  steps.variables = checkVariables(parsed.json, ins.check);
  if (!steps.variables.ok) return fail("variables");
  out.passed13 = true;
  steps.selection = checkSelection(
    parsed.sections.nodeSelection,
    parsed.json,
    ins.check.related_nodes,
    opts.previousTypes,
  );
  if (!steps.selection.ok) return fail("selection");
  out.passDeterministic = true;
  out.passAnalyserClean = out.analyserErrors.length === 0;
  return out;
}

export const FAILURE_KINDS = ["fences/tags", "json", "topology", "selection", "reference", "other"] as const;
export type FailureKind = (typeof FAILURE_KINDS)[number];

const referencedId = (d: Diagnostic) => /references node "([^"]+)"/.exec(d.message)?.[1];

/**
 * What an unrepaired answer failed on, in the repair modules' terms. `allIds` are the node ids the
 * answer defines anywhere, so a reference to a node defined later is an ordering problem.
 */
export function classifyFailure(
  ev: AnswerEvaluation,
  text: string,
  allIds: ReadonlySet<string>,
): FailureKind | undefined {
  if (!ev.failStep) return undefined;
  if (ev.failStep === "step_1_1") {
    const d = ev.steps.format?.diagnostics ?? [];
    if (d.some((x) => x.code === "answer.missing_tag")) return "fences/tags";
    if (/<workflow[^>]*>\s*```/i.test(text)) return "fences/tags";
    return "json";
  }
  if (ev.failStep === "step_1_2") {
    const errs = (ev.steps.convert?.diagnostics ?? []).filter((d) => d.severity === "error");
    const refs = errs.filter((d) => d.code === "compact.unknown_node_ref");
    if (refs.length && refs.every((d) => allIds.has(referencedId(d) ?? "\u0000")))
      return errs.length === refs.length ? "topology" : "other";
    if (
      errs.length &&
      errs.every(
        (d) =>
          d.code === "compact.unknown_node_ref" ||
          d.code === "compact.bad_reference" ||
          (d.code === "compact.bad_text" && /a list/.test(d.message)),
      )
    )
      return "reference";
    return "other";
  }
  if (ev.failStep === "step_1_4") {
    const d = (ev.steps.selection?.diagnostics ?? []).filter((x) => x.severity === "error");
    return d.some((x) => x.code === "pass.key_node_unused") ? "other" : "selection";
  }
  return "other";
}

/** Node ids defined in an answer's workflow JSON, read loosely (for classifying ordering failures). */
export function definedIds(text: string): Set<string> {
  const m = /<workflow[^>]*>([\s\S]*?)(<\/workflow>|$)/i.exec(text);
  const ids = new Set<string>();
  for (const x of (m?.[1] ?? "").matchAll(/"id"\s*:\s*"?([\w-]+)"?/g)) ids.add(x[1]!);
  return ids;
}

/** Node types an answer's workflow uses, read strictly (none when its JSON does not parse). */
export function answerNodeTypes(text: string): string[] | undefined {
  const json = parseAnswer(text).json as { nodes_info?: unknown } | undefined;
  if (!json || !Array.isArray(json.nodes_info)) return undefined;
  const types = json.nodes_info.flatMap((n) =>
    n && typeof n === "object" && typeof (n as { type?: unknown }).type === "string"
      ? [(n as { type: string }).type]
      : [],
  );
  return [...new Set(types)];
}
