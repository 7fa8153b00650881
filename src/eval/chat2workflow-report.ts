/**
 * Where each Chat2Workflow case ends, summarised: counts per end state, the file-extension checks per
 * required type, and the tools the surviving workflows call with how their cases ended.
 */
import { parse as parseYaml } from "yaml";
import type { AnswerWorkflows } from "./answer-workflows.js";
import type { ResolveCaseResult, ResolveSuite, ResolveSuiteResult } from "./resolve-suite.js";

export type EndState =
  | "pass_stage"
  | "error"
  | "empty_outputs"
  | "file_check"
  | "files_only"
  | "judge_pass"
  | "judge_fail"
  | "judge_skipped"
  | "judge_unknown";

export interface CaseEndState {
  key: string;
  case: string;
  end: EndState;
  /** pass_stage: the failing step; error: the error code; file_check: the failing reasons. */
  kind?: string;
  pass: boolean | null;
  detail: string;
}

export interface FileCheckRow {
  extension: string;
  /** Cases whose instruction requires an output of this type. */
  required: number;
  /** Of those, cases whose run finished with outputs (so the check ran). */
  checked: number;
  right: number;
  wrongExtension: number;
  missingOrNotFile: number;
  /** Extensions seen on the checked outputs. */
  seen: string[];
}

export interface ToolRow {
  tool: string;
  instructions: string[];
  cases: number;
  /** end state (with kind for errors) → cases */
  ends: Record<string, number>;
  /** Cases that failed on this tool's node. */
  failedHere: number;
}

export interface EndStateReport {
  cases: CaseEndState[];
  byEndState: Record<string, number>;
  fileChecks: FileCheckRow[];
  tools: ToolRow[];
  lines: string[];
  markdown: string;
}

const keyOf = (r: { task: string; round: number }) => `${r.task}_${r.round}`;

function endOf(r: ResolveCaseResult, failStep: string | undefined): CaseEndState {
  const base = { key: keyOf(r), case: r.case, pass: r.pass };
  if (failStep) return { ...base, end: "pass_stage", kind: failStep, detail: "failed the pass stage: counted 0" };
  if (r.stage === "error")
    return { ...base, end: "error", kind: r.errorCode, detail: [r.cause, r.reason].filter(Boolean).join(" — ") };
  if (r.stage === "judge") return { ...base, end: r.pass ? "judge_pass" : "judge_fail", detail: r.reason };
  if (r.stage === "file_check")
    return { ...base, end: "file_check", kind: r.fileFailures?.map((f) => f.reason).join(","), detail: r.reason };
  return { ...base, end: r.stage, detail: r.reason };
}

const label = (e: CaseEndState) => (e.kind && e.end !== "file_check" ? `${e.end} ${e.kind}` : e.end);

/** Tool nodes (provider/tool) of a Dify YAML workflow. */
function toolsOf(yaml: string): string[] {
  try {
    const doc = parseYaml(yaml) as { workflow?: { graph?: { nodes?: Array<{ data?: Record<string, unknown> }> } } };
    const nodes = doc.workflow?.graph?.nodes ?? [];
    return [
      ...new Set(
        nodes
          .map((n) => n.data ?? {})
          .filter((d) => d.type === "tool")
          .map((d) => `${String(d.provider_id ?? d.provider_name)}/${String(d.tool_name)}`),
      ),
    ];
  } catch {
    return [];
  }
}

function fileChecks(results: ResolveCaseResult[], suite: ResolveSuite): FileCheckRow[] {
  const required = new Map(suite.instructions.map((i) => [keyOf(i), i.required_files ?? {}]));
  const rows = new Map<string, FileCheckRow>();
  const row = (ext: string) => {
    let r = rows.get(ext);
    if (!r) {
      r = { extension: ext, required: 0, checked: 0, right: 0, wrongExtension: 0, missingOrNotFile: 0, seen: [] };
      rows.set(ext, r);
    }
    return r;
  };
  for (const r of results) {
    for (const [name, ext] of Object.entries(required.get(keyOf(r)) ?? {})) {
      const x = row(ext);
      x.required++;
      const reached =
        r.stage === "file_check" || r.stage === "files_only" || r.stage === "judge" || r.stage === "judge_skipped";
      if (!reached) continue;
      x.checked++;
      const failure = r.fileFailures?.find((f) => f.output === name);
      if (!failure) x.right++;
      else if (failure.reason === "wrong_extension") x.wrongExtension++;
      else x.missingOrNotFile++;
      for (const e of r.fileExtensions?.[name] ?? []) if (!x.seen.includes(e)) x.seen.push(e);
    }
  }
  return [...rows.values()].sort((a, b) => a.extension.localeCompare(b.extension));
}

function toolRows(workflows: AnswerWorkflows, cases: CaseEndState[], results: ResolveCaseResult[]): ToolRow[] {
  const yamlOf = new Map(
    workflows.pass.items.map((i) => {
      const ev = workflows.repaired && i.repaired ? i.repaired : i.strict;
      return [i.instruction.key, ev.yaml] as const;
    }),
  );
  const survivors = new Set(workflows.entries.filter((e) => e.survived).map((e) => e.key));
  const rows = new Map<string, ToolRow>();
  for (const [i, c] of cases.entries()) {
    if (!survivors.has(c.key)) continue;
    for (const tool of toolsOf(yamlOf.get(c.key) ?? "")) {
      let r = rows.get(tool);
      if (!r) {
        r = { tool, instructions: [], cases: 0, ends: {}, failedHere: 0 };
        rows.set(tool, r);
      }
      if (!r.instructions.includes(c.key)) r.instructions.push(c.key);
      r.cases++;
      r.ends[label(c)] = (r.ends[label(c)] ?? 0) + 1;
      if (results[i]!.cause === `tool ${tool}`) r.failedHere++;
    }
  }
  return [...rows.values()].sort((a, b) => a.tool.localeCompare(b.tool));
}

const esc = (s: string) => s.replace(/\|/g, "\\|").replace(/\s+/g, " ").slice(0, 240);
/** What decided step_1_4, in words. */
export function step14Text(w: AnswerWorkflows): string {
  if (w.decidedBy === "upstream" && w.step14)
    return `upstream rules; step_1_4 by the recorded judge ${w.step14.recorded}, a live judge ${w.step14.judge}, the deterministic stand-in ${w.step14.standIn}`;
  return `step_1_4 by the ${w.decidedBy === "judge" ? "LLM judge" : "deterministic stand-in"}`;
}

const pct = (n: number, d: number) => (d ? `${((100 * n) / d).toFixed(1)}%` : "–");

function render(
  workflows: AnswerWorkflows,
  resolved: ResolveSuiteResult,
  r: Omit<EndStateReport, "lines" | "markdown">,
): string {
  const L: string[] = [`# Chat2Workflow — ${workflows.model}`, ""];
  L.push(
    `Pass stage: ${workflows.written} of ${workflows.total} instructions survive (${step14Text(workflows)}${workflows.repaired ? ", after auto-repair" : ""}); their Dify YAML is in \`workflows/\`.`,
    `Resolve stage (${resolved.fidelity} rules): ${resolved.passed} passed, ${resolved.failed} failed, ${resolved.skipped} not judged, ${resolved.unknown} unknown (judge outage, left out), of ${resolved.cases} cases — ${
      resolved.resolveRate !== null
        ? `resolve rate ${pct(resolved.passed, resolved.cases - resolved.unknown)}`
        : `resolve rate between ${pct(resolved.passed, resolved.cases - resolved.unknown)} and ${pct(resolved.passed + resolved.skipped, resolved.cases - resolved.unknown)}`
    }${resolved.judge ? "" : " (no judge configured: text outputs were not judged)"}.`,
    "",
    "## Where the cases end",
    "",
    "| end state | cases |",
    "|---|---|",
  );
  for (const [k, n] of Object.entries(r.byEndState).sort((a, b) => b[1] - a[1])) L.push(`| ${k} | ${n} |`);
  L.push(
    "",
    "## File-extension checks",
    "",
    "Per required output type: cases that require it, cases whose run reached the check, and its outcome.",
    "",
    "| extension | required | checked | right extension | wrong extension | missing / not a file | extensions seen |",
    "|---|---|---|---|---|---|---|",
  );
  for (const f of r.fileChecks)
    L.push(
      `| ${f.extension} | ${f.required} | ${f.checked} | ${f.right} | ${f.wrongExtension} | ${f.missingOrNotFile} | ${f.seen.join(" ") || "–"} |`,
    );
  L.push(
    "",
    "## Tools the surviving workflows call",
    "",
    "| tool | instructions | cases | end states | failed on this tool |",
    "|---|---|---|---|---|",
  );
  for (const t of r.tools)
    L.push(
      `| ${t.tool} | ${t.instructions.length} | ${t.cases} | ${Object.entries(t.ends)
        .map(([k, n]) => `${k} ${n}`)
        .join(", ")} | ${t.failedHere} |`,
    );
  L.push("", "## Every case", "", "| instruction | case | end state | detail |", "|---|---|---|---|");
  for (const c of r.cases) L.push(`| ${c.key} | ${c.case} | ${label(c)} | ${esc(c.detail)} |`);
  return `${L.join("\n")}\n`;
}

export function summariseEndStates(
  workflows: AnswerWorkflows,
  resolved: ResolveSuiteResult,
  suite: ResolveSuite,
): EndStateReport {
  const failStep = new Map(workflows.entries.filter((e) => !e.survived).map((e) => [e.key, e.failStep ?? "step_1_2"]));
  const cases = resolved.results.map((r) => endOf(r, failStep.get(keyOf(r))));
  const byEndState: Record<string, number> = {};
  for (const c of cases) byEndState[label(c)] = (byEndState[label(c)] ?? 0) + 1;
  const body = {
    cases,
    byEndState,
    fileChecks: fileChecks(resolved.results, suite),
    tools: toolRows(workflows, cases, resolved.results),
  };
  const lines = cases.map(
    (c) =>
      `${c.pass === true ? "✓" : c.pass === false ? "✗" : "?"} ${c.key} ${c.case}: ${label(c)}${c.detail ? ` — ${c.detail.replace(/\s+/g, " ").slice(0, 200)}` : ""}`,
  );
  return { ...body, lines, markdown: render(workflows, resolved, body) };
}
