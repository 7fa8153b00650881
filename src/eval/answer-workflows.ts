/**
 * Recorded (or generated) Chat2Workflow answers → workflow files: the pass stage decides which answers
 * survive, and each survivor's Dify YAML (what upstream imports into Dify) is written as
 * `<Task>_<round>.yml`. The others get no file, so the resolve stage counts their three cases as 0, as
 * upstream does. `manifest.json` lists every instruction with its verdict.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Fidelity } from "./fidelity.js";
import type { AnswerRecord, Suite } from "./pass/dataset.js";
import { evaluatePassSuite, type JudgedEvaluation, type PassOptions, type PassSuiteResult } from "./pass.js";

export interface WorkflowFileEntry {
  key: string;
  task: string;
  round: number;
  domain: string;
  survived: boolean;
  /** The first failing pass step (step_1_1 … step_1_4) when it did not survive. */
  failStep?: string;
  /** Error codes of the failing step. */
  codes: string[];
  file?: string;
}

export interface AnswerWorkflows {
  model: string;
  dir: string;
  /** What decided step_1_4: the LLM judge, or the deterministic stand-in; under upstream fidelity, per item (see step14). */
  decidedBy: "judge" | "deterministic" | "upstream";
  /** Upstream fidelity: how many step_1_4 verdicts came from the records, a live judge, the stand-in. */
  step14?: { recorded: number; judge: number; standIn: number };
  fidelity: Fidelity;
  repaired: boolean;
  total: number;
  written: number;
  entries: WorkflowFileEntry[];
  pass: PassSuiteResult;
}

const survived = (e: JudgedEvaluation, judged: boolean) => (judged ? e.passJudged === true : e.passDeterministic);

function failure(e: JudgedEvaluation, judged: boolean): { failStep?: string; codes: string[] } {
  if (survived(e, judged)) return { codes: [] };
  // With a judge (live or recorded), step_1_4 is its verdict, whatever the deterministic stand-in said.
  if (judged && e.passed13 && e.judgeSource !== "stand-in")
    return {
      failStep: "step_1_4",
      codes: [e.judgeSource === "recorded" ? "pass.recorded_judge_rejected" : "pass.judge_rejected"],
    };
  const step = Object.values(e.steps).find((s) => s && !s.ok);
  const codes = [...new Set((step?.diagnostics ?? []).filter((d) => d.severity === "error").map((d) => d.code))];
  return { failStep: e.failStep, codes };
}

export async function writeAnswerWorkflows(
  suite: Suite,
  records: readonly AnswerRecord[],
  model: string,
  dir: string,
  opts: PassOptions = {},
): Promise<AnswerWorkflows> {
  const pass = await evaluatePassSuite(suite, records, model, opts);
  const fidelity = opts.fidelity ?? "weft";
  const judged = fidelity === "upstream" || !!opts.judge;
  const out = resolve(dir);
  mkdirSync(out, { recursive: true });
  const entries: WorkflowFileEntry[] = [];
  for (const item of pass.items) {
    const ev = opts.repair && item.repaired ? item.repaired : item.strict;
    const key = item.instruction.key;
    // A file left from an earlier run would be scored as this model's answer.
    for (const ext of [".yml", ".yaml", ".json"]) {
      const stale = join(out, `${key}${ext}`);
      if (existsSync(stale)) rmSync(stale);
    }
    const ok = survived(ev, judged) && ev.yaml !== undefined;
    const entry: WorkflowFileEntry = {
      key,
      task: item.instruction.task,
      round: item.instruction.round,
      domain: item.instruction.domain,
      survived: ok,
      ...failure(ev, judged),
    };
    if (ok) {
      entry.file = `${key}.yml`;
      writeFileSync(join(out, entry.file), ev.yaml!);
    }
    entries.push(entry);
  }
  const sources = pass.items.map((i) => i.strict.judgeSource);
  const count = (k: string) => sources.filter((x) => x === k).length;
  const result = {
    model,
    dir: out,
    fidelity,
    decidedBy:
      fidelity === "upstream" ? ("upstream" as const) : opts.judge ? ("judge" as const) : ("deterministic" as const),
    ...(fidelity === "upstream"
      ? { step14: { recorded: count("recorded"), judge: count("judge"), standIn: count("stand-in") } }
      : {}),
    repaired: !!opts.repair,
    total: entries.length,
    written: entries.filter((e) => e.survived).length,
    entries,
  };
  writeFileSync(join(out, "manifest.json"), `${JSON.stringify(result, null, 2)}\n`);
  return { ...result, pass };
}
