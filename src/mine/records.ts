/**
 * Historical task-solving records: {id, query, reference result, validated tool-invocation log}.
 * Loaders read Weft's own record files (JSON array, `{records: [...]}` or JSONL) and the ToolBench
 * corpus formats (DFSDT answer files, `derived_call_chains.json`, StableToolBench converted predictions).
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { z } from "zod";
import { seededRandom } from "../util/random.js";
import { MineCodes, MineError } from "./errors.js";

export const ToolInvocationSchema = z.object({
  tool: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()).default({}),
  /** The tool's logged response, when the log has it (lets a replay tool service answer). */
  response: z.string().optional(),
});
export type ToolInvocationRecord = z.infer<typeof ToolInvocationSchema>;

export const TaskRecordSchema = z.object({
  id: z.string().min(1),
  query: z.string().min(1),
  /** The validated final answer the task should produce. */
  reference: z.string().default(""),
  /** The validated tool calls, in execution order (ToolBench's `Finish` excluded). */
  calls: z.array(ToolInvocationSchema).default([]),
});
export type TaskRecord = z.infer<typeof TaskRecordSchema>;

export const RecordsFileSchema = z.union([
  z.array(TaskRecordSchema),
  z.object({ records: z.array(TaskRecordSchema) }).transform((o) => o.records),
]);

function issues(err: z.ZodError): Array<{ path: string; reason: string }> {
  return err.issues.map((i) => ({ path: i.path.join("."), reason: i.message }));
}

/** Validates already-parsed records; a bad one is a MineError naming the path and reason. */
export function parseRecords(data: unknown, source = "records"): TaskRecord[] {
  // Parse the list itself (not the union) so issue paths point into the records.
  const list = Array.isArray(data)
    ? data
    : data && typeof data === "object" && "records" in data
      ? (data as { records: unknown }).records
      : data;
  const r = z.array(TaskRecordSchema).safeParse(list);
  if (!r.success) {
    const first = issues(r.error)[0];
    throw new MineError(
      MineCodes.recordsInvalid,
      `${source}: not a list of task records${first ? ` (${first.path || "<root>"}: ${first.reason})` : ""}`,
      { source, issues: issues(r.error) },
    );
  }
  const seen = new Set<string>();
  for (const rec of r.data) {
    if (seen.has(rec.id))
      throw new MineError(MineCodes.recordsInvalid, `${source}: record id "${rec.id}" appears twice`, {
        source,
        id: rec.id,
      });
    seen.add(rec.id);
  }
  return r.data;
}

function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new MineError(MineCodes.recordsUnreadable, `cannot read ${path}: ${(e as Error).message}`, { path });
  }
  try {
    return JSON.parse(text);
  } catch {
    // JSON Lines: one record per non-empty line.
    const lines = text.split(/\r?\n/).filter((l) => l.trim() !== "");
    try {
      return lines.map((l) => JSON.parse(l));
    } catch (e) {
      throw new MineError(
        MineCodes.recordsUnreadable,
        `${path} is neither JSON nor JSON Lines: ${(e as Error).message}`,
        {
          path,
        },
      );
    }
  }
}

/** Arguments as ToolBench writes them: a JSON string (sometimes broken), or already an object. */
export function parseArguments(raw: unknown): Record<string, unknown> {
  if (raw && typeof raw === "object" && !Array.isArray(raw)) return raw as Record<string, unknown>;
  if (typeof raw !== "string" || raw.trim() === "") return {};
  try {
    const v = JSON.parse(raw);
    return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : { __unparsed__: raw };
  } catch {
    return { __unparsed__: raw };
  }
}

/** `{'name': 'x', 'arguments': '{...}'}` — the Python-repr wrapper some ToolBench dumps use. */
function parseFunctionCall(fc: unknown): { name: string; arguments: unknown } | undefined {
  if (fc && typeof fc === "object") {
    const o = fc as Record<string, unknown>;
    return typeof o.name === "string" ? { name: o.name, arguments: o.arguments } : undefined;
  }
  if (typeof fc !== "string") return undefined;
  const name = fc.match(/['"]name['"]\s*:\s*['"]([^'"]+)['"]/)?.[1];
  if (!name) return undefined;
  const args = fc.match(/['"]arguments['"]\s*:\s*'([\s\S]*)'\s*\}\s*$/)?.[1];
  return { name, arguments: args?.replace(/\\n/g, "\n").replace(/\\'/g, "'") ?? "{}" };
}

export interface ToolBenchLoadOptions {
  /** Keep only validated solutions (`win` and `finish_type == give_answer`); default true. */
  validatedOnly?: boolean;
  /** Name of the terminating pseudo-call, dropped from the log. */
  finishName?: string;
}

function finalAnswerOf(calls: Array<{ name: string; arguments: unknown }>, fallback: unknown, finish: string): string {
  if (typeof fallback === "string" && fallback.trim() !== "") {
    const parsed = parseArguments(fallback);
    if (typeof parsed.final_answer === "string") return parsed.final_answer;
    return fallback;
  }
  const fin = calls.find((c) => c.name === finish);
  const a = fin ? parseArguments(fin.arguments) : {};
  return typeof a.final_answer === "string" ? a.final_answer : "";
}

function toCalls(
  list: Array<{ name: string; arguments: unknown; response?: unknown }>,
  finish: string,
): ToolInvocationRecord[] {
  return list
    .filter((c) => c.name !== finish)
    .map((c) => ({
      tool: c.name,
      arguments: parseArguments(c.arguments),
      ...(c.response !== undefined
        ? { response: typeof c.response === "string" ? c.response : JSON.stringify(c.response) }
        : {}),
    }));
}

/** One DFSDT / CoT answer file (ToolBench `answer/G*_answer/*.json`, StableToolBench `answer/**`). */
function fromAnswerFile(
  data: Record<string, unknown>,
  id: string,
  o: Required<ToolBenchLoadOptions>,
): TaskRecord | undefined {
  const ag = (data.answer_generation ?? {}) as Record<string, unknown>;
  const tm = Array.isArray(ag.train_messages) ? (ag.train_messages as unknown[]) : [];
  const path = Array.isArray(tm.at(-1)) ? (tm.at(-1) as Array<Record<string, unknown>>) : [];
  const calls: Array<{ name: string; arguments: unknown; response?: string }> = [];
  for (const m of path) {
    if (m?.role === "assistant") {
      const c = parseFunctionCall(m.function_call);
      if (c) calls.push(c);
    } else if (m?.role === "function" && typeof m.content === "string") {
      const last = calls.at(-1);
      if (last && last.response === undefined && (m.name === undefined || m.name === last.name))
        last.response = m.content;
    }
  }
  const validated = data.win === true && ag.finish_type === "give_answer";
  if (o.validatedOnly && !validated) return undefined;
  const query = typeof ag.query === "string" ? ag.query : "";
  if (!query) return undefined;
  return {
    id,
    query: query.trim(),
    reference: finalAnswerOf(calls, ag.final_answer, o.finishName),
    calls: toCalls(calls, o.finishName),
  };
}

/** `derived_call_chains.json`: [{source, query, win, finish_type, calls:[{name, arguments}]}]. */
function fromDerivedChains(list: Array<Record<string, unknown>>, o: Required<ToolBenchLoadOptions>): TaskRecord[] {
  const out: TaskRecord[] = [];
  for (const [i, e] of list.entries()) {
    if (o.validatedOnly && !(e.win === true && e.finish_type === "give_answer")) continue;
    const calls = (Array.isArray(e.calls) ? e.calls : []) as Array<{ name: string; arguments: unknown }>;
    if (typeof e.query !== "string") continue;
    const src = typeof e.source === "string" ? e.source : `chain-${i}`;
    out.push({
      id: src.replace(/^.*answer\//, "").replace(/\.json$/, ""),
      query: e.query.trim(),
      reference: finalAnswerOf(calls, undefined, o.finishName),
      calls: toCalls(calls, o.finishName),
    });
  }
  return out;
}

/** StableToolBench converted predictions: {qid: {query, answer: {final_answer, answer_details}}}. */
function fromConverted(obj: Record<string, Record<string, unknown>>, o: Required<ToolBenchLoadOptions>): TaskRecord[] {
  const out: TaskRecord[] = [];
  for (const [qid, e] of Object.entries(obj)) {
    const answer = (e.answer ?? {}) as Record<string, unknown>;
    const calls: Array<{ name: string; arguments: unknown }> = [];
    const walk = (steps: unknown): void => {
      for (const s of Array.isArray(steps) ? steps : []) {
        const st = s as Record<string, unknown>;
        const m = st.message as Record<string, unknown> | undefined;
        if (st.role === "tool" && m && typeof m.name === "string")
          calls.push({ name: m.name, arguments: m.arguments, response: m.response } as {
            name: string;
            arguments: unknown;
          });
        walk(st.next);
      }
    };
    walk(answer.answer_details);
    const finalAnswer = typeof answer.final_answer === "string" ? answer.final_answer : "";
    if (o.validatedOnly && (finalAnswer.trim() === "" || calls.length === 0)) continue;
    if (typeof e.query !== "string") continue;
    out.push({
      id: qid,
      query: e.query.trim(),
      reference: finalAnswerOf(calls, finalAnswer, o.finishName),
      calls: toCalls(calls, o.finishName),
    });
  }
  return out;
}

function fromToolBenchData(data: unknown, id: string, o: Required<ToolBenchLoadOptions>): TaskRecord[] {
  if (Array.isArray(data)) {
    if (data.every((e) => e && typeof e === "object" && "calls" in e && "query" in e && !("id" in e)))
      return fromDerivedChains(data as Array<Record<string, unknown>>, o);
    return parseRecords(data, id);
  }
  if (data && typeof data === "object") {
    const obj = data as Record<string, unknown>;
    if ("answer_generation" in obj) {
      const r = fromAnswerFile(obj, id, o);
      return r ? [r] : [];
    }
    if ("records" in obj) return parseRecords(obj, id);
    const values = Object.values(obj);
    if (values.length > 0 && values.every((v) => v && typeof v === "object" && "answer" in (v as object)))
      return fromConverted(obj as Record<string, Record<string, unknown>>, o);
  }
  throw new MineError(MineCodes.recordsInvalid, `${id}: not a ToolBench answer log or a task-record file`, {
    source: id,
  });
}

/**
 * Loads task records from a file or a directory (recursively, `*.json` / `*.jsonl`). Weft record files
 * and the ToolBench formats are told apart by shape. Records without a tool log are kept (TC then
 * asks for no calls); duplicate ids across files are a MineError.
 */
export function loadRecords(path: string, opts: ToolBenchLoadOptions = {}): TaskRecord[] {
  const o: Required<ToolBenchLoadOptions> = {
    validatedOnly: opts.validatedOnly ?? true,
    finishName: opts.finishName ?? "Finish",
  };
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(path);
  } catch (e) {
    throw new MineError(MineCodes.recordsUnreadable, `cannot read ${path}: ${(e as Error).message}`, { path });
  }
  const files: string[] = [];
  const walk = (p: string): void => {
    for (const name of readdirSync(p).sort()) {
      const full = join(p, name);
      if (statSync(full).isDirectory()) walk(full);
      else if (/\.jsonl?$/.test(name)) files.push(full);
    }
  };
  if (st.isDirectory()) walk(path);
  else files.push(path);
  const out: TaskRecord[] = [];
  for (const f of files) {
    const parent = basename(join(f, ".."));
    out.push(...fromToolBenchData(readJsonFile(f), `${parent}/${basename(f).replace(/\.jsonl?$/, "")}`, o));
  }
  return parseRecords(out, path);
}

export { seededRandom };

export interface RecordSplit {
  optimisation: TaskRecord[];
  validation: TaskRecord[];
  test: TaskRecord[];
}

/**
 * Seeded shuffle, then split by `ratio` (default 5:2:3). Sizes are rounded so that each part with a
 * positive ratio gets at least one record when there are enough records to go round.
 */
export function splitRecords(
  records: readonly TaskRecord[],
  seed = 0,
  ratio: [number, number, number] = [5, 2, 3],
): RecordSplit {
  if (ratio.some((r) => !(r >= 0)) || ratio.every((r) => r === 0))
    throw new MineError(
      MineCodes.invalidOption,
      `split ratio ${ratio.join(":")} must be non-negative and not all zero`,
      {
        field: "ratio",
      },
    );
  const rand = seededRandom(seed);
  const xs = [...records];
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  const total = ratio[0] + ratio[1] + ratio[2];
  const n = xs.length;
  let nVal = Math.round((n * ratio[1]) / total);
  let nTest = Math.round((n * ratio[2]) / total);
  if (n >= 3) {
    if (ratio[1] > 0 && nVal === 0) nVal = 1;
    if (ratio[2] > 0 && nTest === 0) nTest = 1;
  }
  let nOpt = n - nVal - nTest;
  if (ratio[0] > 0 && nOpt <= 0 && n > 0) {
    nOpt = 1;
    if (nTest > 0) nTest -= 1;
    else nVal -= 1;
  }
  return {
    optimisation: xs.slice(0, nOpt),
    validation: xs.slice(nOpt, nOpt + nVal),
    test: xs.slice(nOpt + nVal, nOpt + nVal + nTest),
  };
}
