import { analyse, type BurdenReport, type BurdenThresholds, worstRegions } from "../analysis/index.js";
import { nodeCatalogue } from "../nodes/index.js";
import { type Lowered, type LowerOptions, lowerModel } from "./lower.js";
import type { SopModel } from "./model.js";
import { staticCheck, staticFeedback } from "./validate/static.js";

/** Burden of one model construct: the worst of the IR nodes lowered from it. */
export interface StepBurden {
  construct: string;
  score: number;
  cyclomatic: number;
  contextTokens: number;
  liveArtifacts: number;
  outputTokens: number;
  over: string[];
  nodes: string[];
}

export interface BurdenSummary {
  steps: number;
  nodes: number;
  /** Highest construct score (≥ 1 means over some threshold). */
  maxScore: number;
  maxCyclomatic: number;
  maxContextTokens: number;
  overThreshold: string[];
  decisionPoints: number;
  perConstruct: StepBurden[];
}

export function measureBurden(
  model: SopModel,
  lowered: Lowered,
  thresholds?: Partial<BurdenThresholds>,
): { summary: BurdenSummary; report: BurdenReport } {
  const report = analyse(lowered.workflow, nodeCatalogue, { thresholds }).burden;
  const by = new Map<string, StepBurden>();
  for (const n of report.nodes) {
    const c = lowered.origins[n.nodeId];
    if (!c || c === "inputs" || c === "outputs") continue;
    const b = by.get(c) ?? {
      construct: c,
      score: 0,
      cyclomatic: 0,
      contextTokens: 0,
      liveArtifacts: 0,
      outputTokens: 0,
      over: [],
      nodes: [],
    };
    b.score = Math.max(b.score, n.score);
    b.cyclomatic = Math.max(b.cyclomatic, n.cyclomatic);
    b.contextTokens = Math.max(b.contextTokens, n.contextTokens);
    b.liveArtifacts = Math.max(b.liveArtifacts, n.liveArtifacts);
    b.outputTokens = Math.max(b.outputTokens, n.outputTokens);
    b.over = [...new Set([...b.over, ...n.over])];
    b.nodes.push(n.nodeId);
    by.set(c, b);
  }
  const per = [...by.values()].sort((a, b) => b.score - a.score);
  return {
    report,
    summary: {
      steps: model.steps.length,
      nodes: lowered.workflow.nodes.length,
      maxScore: per[0]?.score ?? 0,
      maxCyclomatic: Math.max(0, ...per.map((p) => p.cyclomatic)),
      maxContextTokens: Math.max(0, ...per.map((p) => p.contextTokens)),
      overThreshold: per.filter((p) => p.over.length > 0).map((p) => p.construct),
      decisionPoints: report.workflow.decisionPoints,
      perConstruct: per,
    },
  };
}

/** The worst regions over threshold, as revision feedback naming model constructs and their numbers. */
export function burdenFeedback(model: SopModel, lowered: Lowered, report: BurdenReport, k = 3): string[] {
  const t = report.thresholds;
  const byNode = new Map(report.nodes.map((n) => [n.nodeId, n]));
  const steps = new Map(model.steps.map((s) => [s.id, s]));
  const out: string[] = [];
  for (const r of worstRegions(report, k)) {
    if (r.over.length === 0) continue;
    const constructs = [...new Set(r.nodeIds.map((id) => lowered.origins[id]).filter((c): c is string => !!c))];
    const metrics = r.over
      .map((m) => {
        const peak = Math.max(...r.nodeIds.map((id) => byNode.get(id)?.[m] ?? 0));
        return `${m} ${peak} (threshold ${t[m]})`;
      })
      .join(", ");
    const detail = constructs
      .map((c) => {
        const s = steps.get(c);
        return s
          ? `"${c}" (${s.kind}: ${s.instruction.slice(0, 160)}${s.instruction.length > 160 ? "…" : ""})`
          : `"${c}"`;
      })
      .join("; ");
    out.push(
      `Too much burden in ${detail}: ${metrics}. Split it into smaller steps that each make one decision or call one tool (move the decisions into explicit branches), or refocus the instruction; keep the artifacts that later steps read.`,
    );
  }
  return out;
}

export interface OptimiseRound {
  round: number;
  feedback: string[];
  /** Burden of the revision, when it was usable. */
  after?: BurdenSummary;
  accepted: boolean;
  /** Why a revision was not taken (malformed, static errors, no improvement). */
  rejectedBecause?: string;
}

export interface OptimiseResult {
  model: SopModel;
  lowered: Lowered;
  before: BurdenSummary;
  after: BurdenSummary;
  rounds: OptimiseRound[];
}

/**
 * The constrained optimisation loop: while some construct is over a burden threshold, report the worst
 * regions to the model and ask it to split or refocus them; a revision is kept only if it passes the static
 * check and lowers the maximum burden. Stops when all are under thresholds or after `rounds` rounds.
 */
export async function optimiseBurden(o: {
  model: SopModel;
  lowerOptions: LowerOptions;
  thresholds?: Partial<BurdenThresholds>;
  rounds?: number;
  revise: (current: SopModel, feedback: string[]) => Promise<SopModel>;
}): Promise<OptimiseResult> {
  let model = o.model;
  let lowered = lowerModel(model, o.lowerOptions);
  let cur = measureBurden(model, lowered, o.thresholds);
  const before = cur.summary;
  const rounds: OptimiseRound[] = [];
  const maxRounds = o.rounds ?? 3;
  let extra: string[] = [];
  for (let round = 1; round <= maxRounds && cur.summary.overThreshold.length > 0; round++) {
    const feedback = [...burdenFeedback(model, lowered, cur.report), ...extra];
    extra = [];
    let next: SopModel;
    try {
      next = await o.revise(model, feedback);
    } catch (e) {
      rounds.push({ round, feedback, accepted: false, rejectedBecause: (e as Error).message });
      break;
    }
    const nl = lowerModel(next, o.lowerOptions);
    const st = staticCheck(nl);
    if (!st.ok) {
      extra = staticFeedback(st);
      rounds.push({ round, feedback, accepted: false, rejectedBecause: `static check failed: ${extra.join("; ")}` });
      continue;
    }
    const nb = measureBurden(next, nl, o.thresholds);
    if (nb.summary.maxScore >= cur.summary.maxScore) {
      rounds.push({
        round,
        feedback,
        after: nb.summary,
        accepted: false,
        rejectedBecause: `maximum burden did not fall (${nb.summary.maxScore} ≥ ${cur.summary.maxScore})`,
      });
      continue;
    }
    rounds.push({ round, feedback, after: nb.summary, accepted: true });
    model = next;
    lowered = nl;
    cur = nb;
  }
  return { model, lowered, before, after: cur.summary, rounds };
}
