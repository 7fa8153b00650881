/**
 * The Chat2Workflow suite (dataset/query.json + dataset/check_pass_stage.json) and answer files: the
 * recorded upstream records (task, round, node_selection, design_principle, workflow, valid, fail_step)
 * or Weft's own generation records ({task, round, answer}).
 */
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { PassEvalError } from "./errors.js";

export const DOMAINS = ["Research", "Document", "Enterprise", "Developer", "Education", "AIGC"] as const;
export type Domain = (typeof DOMAINS)[number];

export interface PassCheck {
  input_var: string[];
  /** Flat: exactly one End node with these names; nested: one list per End node (a multiset). */
  output_var: string[] | string[][];
  related_nodes: string[];
}

export interface Instruction {
  key: string;
  task: string;
  round: number;
  domain: string;
  query: string;
  check: PassCheck;
}

export interface Suite {
  dir: string;
  instructions: Map<string, Instruction>;
}

export interface AnswerRecord {
  task: string;
  round: number;
  /** The answer text as the model wrote it (reassembled from the recorded sections when not stored). */
  text: string;
  /** The upstream verdict, when the record carries one. */
  recorded?: { valid: boolean; failStep?: string; reason?: string; judged?: boolean };
}

export const instructionKey = (task: string, round: number | string) => `${task}_${Number(round)}`;

function readJson(path: string, what: string): unknown {
  if (!existsSync(path)) throw new PassEvalError("pass.suite_not_found", `${what} not found at ${path}`, { path });
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new PassEvalError("pass.suite_invalid", `${path} is not valid JSON: ${(e as Error).message}`, { path });
  }
}

/** `dir` is the chat2workflow folder (holding dataset/) or the dataset folder itself. */
export function loadSuite(dir: string): Suite {
  if (!existsSync(dir) || !statSync(dir).isDirectory())
    throw new PassEvalError("pass.suite_not_found", `suite folder ${dir} does not exist`, { path: dir });
  const ds = existsSync(join(dir, "dataset", "query.json")) ? join(dir, "dataset") : dir;
  const queries = readJson(join(ds, "query.json"), "query.json");
  const checks = readJson(join(ds, "check_pass_stage.json"), "check_pass_stage.json");
  if (!Array.isArray(queries))
    throw new PassEvalError("pass.suite_invalid", "query.json must be a list of tasks", {
      path: join(ds, "query.json"),
    });
  if (!checks || typeof checks !== "object" || Array.isArray(checks))
    throw new PassEvalError("pass.suite_invalid", "check_pass_stage.json must map <Task>_<round> to checks", {
      path: join(ds, "check_pass_stage.json"),
    });
  const instructions = new Map<string, Instruction>();
  for (const q of queries as Array<Record<string, unknown>>) {
    const task = String(q.task);
    for (let round = 1; typeof q[`query${round}`] === "string"; round++) {
      const key = instructionKey(task, round);
      const c = (checks as Record<string, Record<string, unknown>>)[key];
      if (!c) throw new PassEvalError("pass.suite_invalid", `check_pass_stage.json has no entry ${key}`, { key });
      if (!Array.isArray(c.input_var) || !Array.isArray(c.output_var) || !Array.isArray(c.related_nodes)) {
        throw new PassEvalError("pass.suite_invalid", `${key}: input_var, output_var and related_nodes must be lists`, {
          key,
        });
      }
      instructions.set(key, {
        key,
        task,
        round,
        domain: String(q.category),
        query: q[`query${round}`] as string,
        check: {
          input_var: c.input_var.map(String),
          output_var: c.output_var as PassCheck["output_var"],
          related_nodes: c.related_nodes.map(String),
        },
      });
    }
  }
  return { dir, instructions };
}

/** The answer as the model wrote it: the recorded sections inside their tags; a null section had no tag. */
export function reassembleAnswer(rec: {
  node_selection?: unknown;
  design_principle?: unknown;
  workflow?: unknown;
}): string {
  const part = (tag: string, v: unknown) =>
    v === null || v === undefined ? "" : `<${tag}>${typeof v === "string" ? v : JSON.stringify(v)}</${tag}>`;
  return [
    part("node_selection", rec.node_selection),
    part("design_principle", rec.design_principle),
    part("workflow", rec.workflow),
  ]
    .filter(Boolean)
    .join("\n");
}

const asBool = (v: unknown) => v === true || v === "True" || v === "true";

export function parseAnswerRecords(data: unknown, source = "answers"): AnswerRecord[] {
  if (!Array.isArray(data))
    throw new PassEvalError("pass.answers_invalid", `${source} must be a list of answer records`, { source });
  return data.map((r, i) => {
    if (!r || typeof r !== "object" || typeof (r as Record<string, unknown>).task !== "string") {
      throw new PassEvalError("pass.answers_invalid", `${source}[${i}] must be an object with task and round`, {
        source,
        index: i,
      });
    }
    const o = r as Record<string, unknown>;
    const round = Number(o.round);
    if (!Number.isInteger(round) || round < 1)
      throw new PassEvalError(
        "pass.answers_invalid",
        `${source}[${i}].round must be a positive integer, got ${JSON.stringify(o.round)}`,
        { source, index: i },
      );
    const text = typeof o.answer === "string" ? o.answer : reassembleAnswer(o);
    const recorded =
      "valid" in o
        ? {
            valid: asBool(o.valid),
            failStep: typeof o.fail_step === "string" ? o.fail_step : undefined,
            reason: typeof o.reason === "string" ? o.reason : undefined,
            // pass_stage.py:532 — set once the step_1_4 judge has answered for this record
            ...("has_been_judged" in o ? { judged: asBool(o.has_been_judged) } : {}),
          }
        : undefined;
    return { task: o.task as string, round, text, recorded };
  });
}

export function loadAnswers(path: string): { model: string; records: AnswerRecord[] } {
  if (!existsSync(path))
    throw new PassEvalError("pass.answers_invalid", `answers file ${path} does not exist`, { path });
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new PassEvalError("pass.answers_invalid", `${path} is not valid JSON: ${(e as Error).message}`, { path });
  }
  return { model: basename(path).replace(/\.json$/i, ""), records: parseAnswerRecords(data, path) };
}

/** Published pass rates (paper Table 1, 3-run averages, %) for the models whose answers are shared. */
export const PAPER_PASS_RATES: Record<string, { name: string; rate: number }> = {
  gpt_5d1: { name: "GPT-5.1", rate: 47.26 },
  deepseek_v3d1: { name: "DeepSeek-V3.1", rate: 51.48 },
  glm_4d6: { name: "GLM-4.6", rate: 62.45 },
  k2_instruct: { name: "Kimi-K2-Instruct", rate: 36.29 },
  qwen3_8B: { name: "Qwen-3-8B", rate: 13.92 },
  qwen3_14B: { name: "Qwen-3-14B", rate: 27.43 },
  qwen3_32B: { name: "Qwen-3-32B", rate: 36.71 },
  qwen3_coder_480B_A35B_instruct: { name: "Qwen3-Coder-480B", rate: 42.19 },
};
