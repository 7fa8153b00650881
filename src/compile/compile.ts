import type { BurdenThresholds } from "../analysis/index.js";
import type { LlmService, ModelRef, ToolSpec } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import { type DraftContext, draftModel, reviseModel } from "./draft.js";
import { CompileError } from "./llm.js";
import { type Lowered, type LowerOptions, lowerModel, type ToolCatalog } from "./lower.js";
import type { SopModel } from "./model.js";
import { type BurdenSummary, measureBurden, type OptimiseRound, optimiseBurden } from "./optimise.js";
import { type Disagreement, type DryRunReport, dryRun, dryRunFeedback } from "./validate/dryrun.js";
import { checkObligations, type Obligation, obligationFeedback } from "./validate/obligations.js";
import { extractSourceLogic, type SourceLogic } from "./validate/source.js";
import { type StaticReport, staticCheck, staticFeedback } from "./validate/static.js";

export interface CompileOptions {
  sop: string;
  tools: ToolCatalog;
  llm: LlmService;
  /** Model used for every compile-time call (draft, revisions, extraction, judges). */
  model: ModelRef;
  /** Model the compiled llm/agent nodes name; defaults to `model`. */
  runtimeModel?: ModelRef;
  /** Burden optimisation rounds (default 3). */
  rounds?: number;
  /** Faithfulness re-drafts after dry-run disagreements or failed obligations (default 3). */
  redrafts?: number;
  thresholds?: Partial<BurdenThresholds>;
  /** Skip the judge calls (static checks and dry runs still run). */
  skipObligations?: boolean;
  onProgress?: (message: string) => void;
}

export interface FaithfulnessRound {
  round: number;
  dryRun: DryRunReport;
  obligations: Obligation[];
  static: StaticReport;
  /** Feedback sent to the draft stage after this round (empty when it passed). */
  feedback: string[];
}

export interface CompileReport {
  burden: { before: BurdenSummary; after: BurdenSummary; rounds: OptimiseRound[] };
  static: StaticReport;
  sourceLogic: SourceLogic;
  faithfulness: FaithfulnessRound[];
  obligationsChecked: number;
  obligationsFailed: number;
  scenariosRun: number;
  disagreementsFound: number;
  /** Disagreements found in some round that the final model no longer has. */
  disagreementsFixed: number;
  /** Disagreements the final model still has. */
  disagreementsRemaining: Disagreement[];
  redrafts: number;
  passed: boolean;
}

export interface CompileResult {
  model: SopModel;
  lowered: Lowered;
  workflow: Workflow;
  report: CompileReport;
}

const disagreementKey = (d: Disagreement) => `${d.decision}|${JSON.stringify(d.scenario)}`;

/**
 * SOP → verified artifact-driven workflow: extract the SOP's decision logic (separately), draft the model,
 * make it pass the static checks, optimise burden, then check faithfulness (dry runs by predicate coverage
 * and one judged obligation per construct) and re-draft with the findings until it passes or the budget
 * is spent.
 */
export async function compileSop(o: CompileOptions): Promise<CompileResult> {
  const say = o.onProgress ?? (() => {});
  const lowerOptions: LowerOptions = { tools: o.tools, llmModel: o.runtimeModel ?? o.model };
  say("extracting the SOP's decision logic");
  const logic = await extractSourceLogic({ llm: o.llm, model: o.model, sop: o.sop, tools: o.tools.specs });
  const ctx: DraftContext = { llm: o.llm, model: o.model, sop: o.sop, tools: o.tools.specs, logic };
  say("drafting the workflow model");
  let model = (await draftModel(ctx)).model;
  const redraftBudget = o.redrafts ?? 3;
  // Re-drafts for static errors and faithfulness findings share one budget; burden rounds have their own.
  let redrafts = 0;
  const revise = async (current: SopModel, kind: string, feedback: string[]) => {
    if (kind !== "burden") redrafts++;
    return (await reviseModel(ctx, current, kind, feedback)).model;
  };

  // Static well-formedness first: burden and dry runs of a broken workflow mean nothing.
  let lowered = lowerModel(model, lowerOptions);
  let st = staticCheck(lowered);
  while (!st.ok) {
    if (redrafts >= redraftBudget)
      throw new CompileError(
        "compile.static_failed",
        `the draft still fails the static checks after ${redrafts} re-drafts:\n${staticFeedback(st).join("\n")}`,
        {
          errors: st.errors,
        },
      );
    say(`static check: ${st.errors.length} error(s); re-drafting`);
    model = await revise(model, "static errors", staticFeedback(st));
    lowered = lowerModel(model, lowerOptions);
    st = staticCheck(lowered);
  }

  say("optimising burden");
  const opt = await optimiseBurden({
    model,
    lowerOptions,
    thresholds: o.thresholds,
    rounds: o.rounds,
    revise: (cur, fb) => revise(cur, "burden", fb),
  });
  model = opt.model;
  lowered = opt.lowered;

  const rounds: FaithfulnessRound[] = [];
  const found = new Map<string, Disagreement>();
  let rejectedFix: string[] = [];
  for (let round = 1; ; round++) {
    say(`faithfulness round ${round}`);
    const dr = dryRun(model, logic);
    for (const d of dr.disagreements) found.set(disagreementKey(d), d);
    const obligations = o.skipObligations
      ? []
      : await checkObligations({ llm: o.llm, model: o.model, sop: o.sop, sopModel: model, logic });
    const findings = [...dryRunFeedback(dr, logic), ...obligationFeedback(obligations)];
    rounds.push({ round, dryRun: dr, obligations, static: st, feedback: findings });
    if (findings.length === 0 || redrafts >= redraftBudget) break;
    // A previous fix that broke well-formedness was not taken; say why along with the findings.
    const feedback = [...findings, ...rejectedFix];
    rejectedFix = [];
    let next: SopModel;
    try {
      next = await revise(model, "faithfulness", feedback);
    } catch (e) {
      if (e instanceof CompileError) break;
      throw e;
    }
    const nl = lowerModel(next, lowerOptions);
    const ns = staticCheck(nl);
    if (!ns.ok) {
      rejectedFix = staticFeedback(ns).map(
        (f) => `Your previous revision was not used because it fails the static check: ${f}`,
      );
      continue;
    }
    model = next;
    lowered = nl;
    st = ns;
  }
  const last = rounds.at(-1)!;
  const remaining = last.dryRun.disagreements;
  const remainingKeys = new Set(remaining.map(disagreementKey));
  const after = measureBurden(model, lowered, o.thresholds).summary;
  const allObligations = rounds.flatMap((r) => r.obligations);
  const report: CompileReport = {
    burden: { before: opt.before, after, rounds: opt.rounds },
    static: st,
    sourceLogic: logic,
    faithfulness: rounds,
    obligationsChecked: allObligations.length,
    obligationsFailed: allObligations.filter((x) => !x.holds).length,
    scenariosRun: rounds.reduce((s, r) => s + r.dryRun.scenariosRun, 0),
    disagreementsFound: found.size,
    disagreementsFixed: [...found.keys()].filter((k) => !remainingKeys.has(k)).length,
    disagreementsRemaining: remaining,
    redrafts,
    passed: st.ok && last.feedback.length === 0,
  };
  return { model, lowered, workflow: lowered.workflow, report };
}

/** Tool specs from a file's JSON: Weft `ToolSpec[]`, SOP-Bench/Bedrock `[{toolSpec: {name, inputSchema: {json}}}]`, or `{providerId, tools}`. */
export function readToolCatalog(raw: unknown, providerId?: string): ToolCatalog {
  const fromList = (list: unknown[]): ToolSpec[] =>
    list.map((x, i) => {
      const o = (x && typeof x === "object" ? x : {}) as Record<string, any>;
      const s = (o.toolSpec ?? o) as Record<string, any>;
      const params = s.inputSchema?.json ?? s.parameters ?? s.inputSchema ?? { type: "object", properties: {} };
      if (typeof s.name !== "string" || !s.name)
        throw new CompileError("compile.tools_invalid", `tool spec ${i} has no name`, { index: i });
      return { name: s.name, description: typeof s.description === "string" ? s.description : "", parameters: params };
    });
  if (Array.isArray(raw)) return { providerId: providerId ?? "tools", specs: fromList(raw) };
  if (raw && typeof raw === "object" && Array.isArray((raw as any).tools)) {
    const r = raw as { providerId?: unknown; tools: unknown[] };
    return {
      providerId: providerId ?? (typeof r.providerId === "string" ? r.providerId : "tools"),
      specs: fromList(r.tools),
    };
  }
  throw new CompileError(
    "compile.tools_invalid",
    "tool specs must be a JSON list of specs, or {providerId, tools: [...]}",
    {},
  );
}
