/** Markdown report of one model's pass-stage evaluation. */
import type { Diagnostic } from "../../ir/diagnostics.js";
import {
  type JudgedEvaluation,
  type Outcome13,
  ourOutcome,
  type PassSuiteResult,
  type RateSet,
  recordedOutcome,
} from "./results.js";

const pct = (n: number, d: number) => (d === 0 ? "–" : `${((100 * n) / d).toFixed(2)}%`);
const cell = (n: number | undefined, d: number) => (n === undefined ? "–" : `${n}/${d} (${pct(n, d)})`);
const esc = (s: string) => s.replace(/\|/g, "\\|").replace(/\n/g, " ");

function codes(e: JudgedEvaluation): string[] {
  const all: Diagnostic[] = Object.values(e.steps).flatMap((s) => s?.diagnostics ?? []);
  return [...new Set(all.filter((d) => d.severity === "error").map((d) => d.code))];
}
function firstMessage(e: JudgedEvaluation): string {
  const step = e.failStep ? Object.values(e.steps).find((s) => s && !s.ok) : undefined;
  const d = step?.diagnostics.find((x) => x.severity === "error");
  return d ? esc(d.message).slice(0, 160) : "";
}

export function renderPassReport(result: PassSuiteResult): string {
  const { summary: s, items } = result;
  const title = s.paper ? `${s.paper.name} (${s.model})` : s.model;
  const L: string[] = [`# Chat2Workflow pass stage — ${title}`, ""];
  L.push(
    `${s.total} answers. Judge: ${s.judge === "used" ? "used (LLM, step_1_4)" : "**skipped** — no judge configured, so only the deterministic checks are reported"}. Repairs: ${s.repaired ? "applied in a second run" : "off"}.`,
    "",
  );
  L.push("## Pass rates", "");
  const rep = s.repaired;
  L.push(`| measure | as written${rep ? " | after auto-repair" : ""} |`, `|---|---${rep ? "|---" : ""}|`);
  const row = (label: string, f: (r: RateSet) => number | undefined) =>
    L.push(`| ${label} | ${cell(f(s.strict), s.total)}${rep ? ` | ${cell(f(rep), s.total)}` : ""} |`);
  row("steps 1_1–1_3 (format, conversion + Dify round trip, variable names)", (r) => r.passed13);
  row("**pass (paper's deterministic checks)**: 1_1–1_3 + node selection/key nodes", (r) => r.deterministic);
  row("pass + Weft analyser clean (stricter)", (r) => r.analyserClean);
  if (s.judge === "used") row("pass with the LLM judge (1_1–1_3 + judged 1_4)", (r) => r.judged);
  else L.push(`| pass with the LLM judge | skipped${rep ? " | skipped" : ""} |`);
  if (s.recorded)
    L.push(
      `| recorded upstream verdict (single run, GPT-5.1 judge) | ${cell(s.recorded.passed, s.recorded.total)}${rep ? " | " : ""} |`,
    );
  if (s.paper) L.push(`| paper, Table 1 (3-run average) | ${s.paper.rate.toFixed(2)}%${rep ? " | " : ""} |`);
  L.push("");

  const breakdown = (
    head: string,
    rows: Array<{ label: string; strict: RateSet; repaired?: RateSet; recordedPassed?: number }>,
  ) => {
    L.push(
      `| ${head} | n | deterministic pass | + analyser clean |${rep ? " repaired: deterministic |" : ""}${s.judge === "used" ? " judged |" : ""} recorded upstream |`,
    );
    L.push(`|---|---|---|---|${rep ? "---|" : ""}${s.judge === "used" ? "---|" : ""}---|`);
    for (const r of rows) {
      const n = r.strict.total;
      L.push(
        `| ${r.label} | ${n} | ${cell(r.strict.deterministic, n)} | ${cell(r.strict.analyserClean, n)} |${rep ? ` ${cell(r.repaired?.deterministic, n)} |` : ""}${s.judge === "used" ? ` ${cell(r.strict.judged, n)} |` : ""} ${cell(r.recordedPassed, n)} |`,
      );
    }
    L.push("");
  };
  L.push("## By domain", "");
  breakdown(
    "domain",
    s.byDomain.map((d) => ({ label: d.domain, ...d })),
  );
  L.push("## By round", "");
  breakdown(
    "round",
    s.byRound.map((d) => ({ label: String(d.round), ...d })),
  );

  if (s.repairTable) {
    L.push(
      "## Auto-repair by failure kind",
      "",
      "Kind = what the answer as written failed on first; fixed = passes the deterministic checks after repair.",
      "",
    );
    L.push("| failure kind | failed | fixed by repair |", "|---|---|---|");
    for (const r of s.repairTable) L.push(`| ${r.kind} | ${r.failed} | ${r.fixed} |`);
    const kinds = new Map<string, number>();
    for (const it of items)
      for (const k of new Set(it.repaired?.repairs.map((x) => x.kind) ?? [])) kinds.set(k, (kinds.get(k) ?? 0) + 1);
    L.push(
      "",
      `Repairs applied (answers touched): ${[...kinds].map(([k, n]) => `${k} ${n}`).join(", ") || "none"}.`,
      "",
    );
  }

  if (s.agreement) {
    const a = s.agreement;
    const outs: Outcome13[] = ["step_1_1", "step_1_2", "step_1_3", "passed_1_3"];
    L.push(
      "## Agreement with the recorded verdicts (steps 1_1–1_3)",
      "",
      `Same outcome on ${a.agree} of ${a.total} answers (${pct(a.agree, a.total)}). Rows: recorded; columns: ours.`,
      "",
    );
    L.push(`| recorded \\ ours | ${outs.join(" | ")} |`, `|---|${outs.map(() => "---").join("|")}|`);
    for (const r of outs) L.push(`| ${r} | ${outs.map((c) => a.matrix[r][c]).join(" | ")} |`);
    L.push(
      "",
      "### Disagreements",
      "",
      "| instruction | recorded | ours | our diagnostic codes | first message |",
      "|---|---|---|---|---|",
    );
    for (const it of items) {
      const ours = ourOutcome(it.strict);
      const theirs = recordedOutcome(it.record);
      if (theirs && ours !== theirs)
        L.push(
          `| ${it.instruction.key} | ${theirs} | ${ours} | ${codes(it.strict).join(", ") || "–"} | ${firstMessage(it.strict)} |`,
        );
    }
    L.push("");
  }

  L.push(
    "## Failures (as written)",
    "",
    "| instruction | domain | fail step | codes | first message | analyser errors |",
    "|---|---|---|---|---|---|",
  );
  for (const it of items) {
    const e = it.strict;
    const aCodes = [...new Set(e.analyserErrors.map((d) => d.code))].join(", ");
    if (e.failStep)
      L.push(
        `| ${it.instruction.key} | ${it.instruction.domain} | ${e.failStep} | ${codes(e).join(", ")} | ${firstMessage(e)} | ${aCodes || "–"} |`,
      );
    else if (!e.passAnalyserClean)
      L.push(`| ${it.instruction.key} | ${it.instruction.domain} | (passes; analyser rejects) | – | – | ${aCodes} |`);
  }
  L.push("");
  return L.join("\n");
}
