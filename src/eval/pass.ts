/**
 * Chat2Workflow pass stage over a set of model answers (issue 4/10): per answer the deterministic
 * steps (src/eval/pass/evaluate.ts), optionally the LLM judge for step_1_4, optionally the auto-repairs
 * first; per suite the rates overall, by domain and by round, the repair table, and agreement with the
 * verdicts recorded upstream. Without a judge the judged checks are reported as skipped, never guessed.
 */
import pLimit from "p-limit";
import { UPSTREAM_NODE_COMPLETION_PARAMS } from "./fidelity.js";
import type { AnswerRecord, Instruction, Suite } from "./pass/dataset.js";
import { DOMAINS, instructionKey, PAPER_PASS_RATES } from "./pass/dataset.js";
import { PassEvalError } from "./pass/errors.js";
import { answerNodeTypes, classifyFailure, definedIds, evaluateAnswer, FAILURE_KINDS } from "./pass/evaluate.js";
import type { PassJudge, PassJudgeVerdict } from "./pass/judge.js";
import {
  type JudgedEvaluation,
  type Outcome13,
  ourOutcome,
  type PassItem,
  type PassOptions,
  type PassSuiteResult,
  type PassSummary,
  type RateSet,
  recordedOutcome,
} from "./pass/results.js";

export * from "./pass/checks.js";
export * from "./pass/dataset.js";
export * from "./pass/errors.js";
export * from "./pass/evaluate.js";
export * from "./pass/judge.js";
export { renderPassReport } from "./pass/report.js";
export * from "./pass/results.js";

const emptyRates = (): RateSet => ({ total: 0, passed13: 0, deterministic: 0, analyserClean: 0 });
function addRate(r: RateSet, e: JudgedEvaluation, judged: boolean) {
  r.total++;
  if (e.passed13) r.passed13++;
  if (e.passDeterministic) r.deterministic++;
  if (e.passAnalyserClean) r.analyserClean++;
  if (judged) r.judged = (r.judged ?? 0) + (e.passJudged ? 1 : 0);
}

export async function evaluatePassSuite(
  suite: Suite,
  records: readonly AnswerRecord[],
  model: string,
  opts: PassOptions = {},
): Promise<PassSuiteResult> {
  const upstream = opts.fidelity === "upstream";
  if (upstream && opts.repair)
    throw new PassEvalError(
      "pass.fidelity_conflict",
      "the auto-repairs are Weft's; upstream's pass stage has none: drop --repair or use --fidelity weft",
      { field: "repair" },
    );
  const completionParams = upstream ? { ...UPSTREAM_NODE_COMPLETION_PARAMS } : undefined;
  const items: PassItem[] = [];
  const total = records.length;
  let done = 0;
  const byKey = new Map(records.map((r) => [instructionKey(r.task, r.round), r]));
  for (const record of records) {
    const key = instructionKey(record.task, record.round);
    const instruction = suite.instructions.get(key);
    if (!instruction)
      throw new PassEvalError("pass.unknown_instruction", `answer for ${key}: the suite has no such task/round`, {
        key,
      });
    const prev = record.round > 1 ? byKey.get(instructionKey(record.task, record.round - 1)) : undefined;
    const previousTypes = prev ? answerNodeTypes(prev.text) : undefined;
    const strict: JudgedEvaluation = evaluateAnswer(record.text, instruction, {
      previousTypes,
      completionParams,
      upstreamConverter: upstream,
    });
    const item: PassItem = { instruction, record, strict };
    item.failureKind = classifyFailure(strict, record.text, definedIds(record.text));
    if (opts.repair) item.repaired = evaluateAnswer(record.text, instruction, { repair: true, previousTypes });
    items.push(item);
    if (!opts.judge) opts.onProgress?.(++done, total);
  }
  if (upstream) await judgeAsUpstream(items, opts.judge, opts.concurrency ?? 4, (n) => opts.onProgress?.(n, total));
  else if (opts.judge) await runJudge(items, opts.judge, opts.concurrency ?? 4, (n) => opts.onProgress?.(n, total));
  return { summary: summarise(items, model, upstream || !!opts.judge, !!opts.repair), items };
}

/**
 * R1, step_1_4 under upstream fidelity: pass_stage.py:512-515 judges only records that reached it and
 * skips a record already judged, so a recorded judgement stands (its verdict: pass_stage.py:528-530 set
 * fail_step "step_1_4" on a "false"). A record upstream never judged (it failed earlier there) goes to
 * the live judge, or, with none, to the deterministic stand-in — each item says which decided it.
 */
async function judgeAsUpstream(
  items: PassItem[],
  judge: PassJudge | undefined,
  concurrency: number,
  progress: (n: number) => void,
) {
  const live = items.filter((it) => it.strict.passed13 && !it.record.recorded?.judged);
  for (const it of items) {
    const ev = it.strict;
    if (!ev.passed13) ev.passJudged = false;
    else if (it.record.recorded?.judged) {
      ev.passJudged = it.record.recorded.failStep !== "step_1_4";
      ev.judgeSource = "recorded";
    } else if (!judge) {
      ev.passJudged = ev.passDeterministic;
      ev.judgeSource = "stand-in";
    }
  }
  if (judge && live.length > 0) {
    await runJudge(live, judge, concurrency, () => {});
    for (const it of live) it.strict.judgeSource = "judge";
  }
  items.forEach((_, i) => {
    progress(i + 1);
  });
}

async function runJudge(items: PassItem[], judge: PassJudge, concurrency: number, progress: (n: number) => void) {
  const limit = pLimit(concurrency);
  // Identical inputs (e.g. an answer the repairs left unchanged) are judged once.
  const memo = new Map<string, Promise<PassJudgeVerdict>>();
  const ask = (ev: JudgedEvaluation, ins: Instruction) => {
    const input = { ...ev.judgeInput!, gtNodes: ins.check.related_nodes };
    const k = JSON.stringify(input);
    let p = memo.get(k);
    if (!p) {
      p = limit(() => judge(input));
      memo.set(k, p);
    }
    return p;
  };
  let done = 0;
  await Promise.all(
    items.map(async (it) => {
      for (const ev of [it.strict, it.repaired]) {
        if (!ev) continue;
        if (ev.passed13 && ev.judgeInput) {
          ev.judge = await ask(ev, it.instruction);
          ev.passJudged = ev.judge.ok;
        } else ev.passJudged = false;
      }
      progress(++done);
    }),
  );
}

export function summarise(items: readonly PassItem[], model: string, judged: boolean, repaired: boolean): PassSummary {
  const strict = emptyRates();
  const rep = repaired ? emptyRates() : undefined;
  const dom = new Map<string, { strict: RateSet; repaired?: RateSet; recordedPassed?: number }>();
  const rnd = new Map<number, { strict: RateSet; repaired?: RateSet; recordedPassed?: number }>();
  for (const d of DOMAINS) dom.set(d, { strict: emptyRates(), repaired: repaired ? emptyRates() : undefined });
  const hasRecorded = items.length > 0 && items.every((i) => i.record.recorded);
  let recPassed = 0;
  for (const it of items) {
    addRate(strict, it.strict, judged);
    if (rep && it.repaired) addRate(rep, it.repaired, judged);
    const buckets = [
      dom.get(it.instruction.domain) ??
        dom
          .set(it.instruction.domain, { strict: emptyRates(), repaired: repaired ? emptyRates() : undefined })
          .get(it.instruction.domain)!,
      rnd.get(it.instruction.round) ??
        rnd
          .set(it.instruction.round, { strict: emptyRates(), repaired: repaired ? emptyRates() : undefined })
          .get(it.instruction.round)!,
    ];
    for (const b of buckets) {
      addRate(b.strict, it.strict, judged);
      if (b.repaired && it.repaired) addRate(b.repaired, it.repaired, judged);
      if (hasRecorded) b.recordedPassed = (b.recordedPassed ?? 0) + (it.record.recorded!.valid ? 1 : 0);
    }
    if (it.record.recorded?.valid) recPassed++;
  }
  const summary: PassSummary = {
    model,
    paper: PAPER_PASS_RATES[model],
    total: items.length,
    judge: judged ? "used" : "skipped",
    strict,
    repaired: rep,
    recorded: hasRecorded ? { passed: recPassed, total: items.length } : undefined,
    byDomain: [...dom].filter(([, v]) => v.strict.total > 0).map(([domain, v]) => ({ domain, ...v })),
    byRound: [...rnd].sort((a, b) => a[0] - b[0]).map(([round, v]) => ({ round, ...v })),
  };
  if (repaired) {
    summary.repairTable = FAILURE_KINDS.map((kind) => {
      const failed = items.filter((i) => i.failureKind === kind);
      return { kind, failed: failed.length, fixed: failed.filter((i) => i.repaired?.passDeterministic).length };
    });
  }
  if (hasRecorded) {
    const outcomes: Outcome13[] = ["step_1_1", "step_1_2", "step_1_3", "passed_1_3"];
    const matrix = Object.fromEntries(
      outcomes.map((o) => [o, Object.fromEntries(outcomes.map((p) => [p, 0]))]),
    ) as Record<Outcome13, Record<Outcome13, number>>;
    let agree = 0;
    for (const it of items) {
      const ours = ourOutcome(it.strict);
      const theirs = recordedOutcome(it.record)!;
      matrix[theirs][ours]++;
      if (ours === theirs) agree++;
    }
    summary.agreement = { agree, total: items.length, matrix };
  }
  return summary;
}
