// What a pass-stage evaluation produces: per answer, per suite, and the outcome of steps 1_1–1_3.
import type { Fidelity } from "../fidelity.js";
import type { AnswerRecord, Instruction } from "./dataset.js";
import type { AnswerEvaluation, FailureKind } from "./evaluate.js";
import type { PassJudge, PassJudgeVerdict } from "./judge.js";

export interface PassOptions {
  repair?: boolean;
  judge?: PassJudge;
  /**
   * `weft` (default): step_1_4 by `judge`, or else the deterministic stand-in. `upstream`: no repairs,
   * converted model nodes carry upstream's completion params, and step_1_4 is the record's own recorded
   * judgement when it has one (pass_stage.py:514 skips judged records), else `judge`, else the stand-in.
   */
  fidelity?: Fidelity;
  /** Parallel judge calls (default 4). */
  concurrency?: number;
  onProgress?: (done: number, total: number) => void;
}

export interface JudgedEvaluation extends AnswerEvaluation {
  /** The judge's verdict, when a judge ran (only on answers that passed 1_1–1_3). */
  judge?: PassJudgeVerdict;
  /** 1_1–1_3 and the judge (the paper's pass); undefined without a judge. */
  passJudged?: boolean;
  /** What decided step_1_4 when passJudged is set: the record's recorded judgement, a live judge, or the stand-in. */
  judgeSource?: "recorded" | "judge" | "stand-in";
}

export interface PassItem {
  instruction: Instruction;
  record: AnswerRecord;
  strict: JudgedEvaluation;
  repaired?: JudgedEvaluation;
  /** What the unrepaired answer failed on. */
  failureKind?: FailureKind;
}

export interface RateSet {
  total: number;
  passed13: number;
  deterministic: number;
  analyserClean: number;
  judged?: number;
}

export type Outcome13 = "step_1_1" | "step_1_2" | "step_1_3" | "passed_1_3";

export interface PassSummary {
  model: string;
  paper?: { name: string; rate: number };
  total: number;
  judge: "used" | "skipped";
  strict: RateSet;
  repaired?: RateSet;
  /** Upstream single-run verdicts, when the records carry them. */
  recorded?: { passed: number; total: number };
  byDomain: Array<{ domain: string; strict: RateSet; repaired?: RateSet; recordedPassed?: number }>;
  byRound: Array<{ round: number; strict: RateSet; repaired?: RateSet; recordedPassed?: number }>;
  repairTable?: Array<{ kind: FailureKind; failed: number; fixed: number }>;
  /** Ours (strict) vs recorded, on the outcome of steps 1_1–1_3. */
  agreement?: { agree: number; total: number; matrix: Record<Outcome13, Record<Outcome13, number>> };
}

export interface PassSuiteResult {
  summary: PassSummary;
  items: PassItem[];
}

export function ourOutcome(e: AnswerEvaluation): Outcome13 {
  return e.passed13 ? "passed_1_3" : (e.failStep as Outcome13);
}
export function recordedOutcome(r: AnswerRecord): Outcome13 | undefined {
  if (!r.recorded) return undefined;
  const f = r.recorded.failStep;
  return !r.recorded.valid && (f === "step_1_1" || f === "step_1_2" || f === "step_1_3") ? f : "passed_1_3";
}
