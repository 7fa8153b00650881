import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { passKCurveSvg } from "../plot.js";
import type { WorkflowEvalResult } from "./run-workflow.js";

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

/**
 * The public summary of an evaluation: what `--json` prints (rows stay in the results file). `n` is the
 * number of runs per task (pass^k is reported for k = 1..n), `tasks` the number of tasks scored.
 */
export function summarise(r: WorkflowEvalResult) {
  return { domain: r.domain, tasks: r.tasks, n: r.n, strict: r.strict, lenient: r.lenient, passAtK: r.passAtK };
}

export function markdownReport(r: WorkflowEvalResult, workflowName: string): string {
  const lines = [
    `# SOP-Bench ${r.domain}`,
    "",
    `Workflow \`${workflowName}\`, ${r.tasks} tasks × ${r.n} run${r.n === 1 ? "" : "s"}.`,
    "",
    "| metric | value |",
    "| --- | --- |",
    `| strict | ${pct(r.strict)} |`,
    `| lenient | ${pct(r.lenient)} |`,
    `| ceiling (strict rows) | ${r.ceiling !== undefined ? `${r.ceiling}/${r.tasks} (${pct(r.ceiling / Math.max(1, r.tasks))})` : "judgment labels (no rule ceiling)"} |`,
    `| rows with a run error | ${r.perRun.map((s) => s.errors).join(", ")} |`,
    "",
    "| k | pass^k strict | pass^k lenient |",
    "| --- | --- | --- |",
    ...r.passAtK.map((p) => `| ${p.k} | ${pct(p.strict)} | ${pct(p.lenient)} |`),
    "",
  ];
  return lines.join("\n");
}

/** Writes `<domain>.results.json` (every row of every run), `<domain>.md` and `<domain>.passk.svg` into dir. */
export function writeReport(dir: string, r: WorkflowEvalResult, workflowName: string): string[] {
  mkdirSync(dir, { recursive: true });
  const files = {
    json: join(dir, `${r.domain}.results.json`),
    md: join(dir, `${r.domain}.md`),
    svg: join(dir, `${r.domain}.passk.svg`),
  };
  writeFileSync(files.json, `${JSON.stringify({ workflow: workflowName, ...r }, null, 2)}\n`);
  writeFileSync(files.md, markdownReport(r, workflowName));
  writeFileSync(files.svg, passKCurveSvg(r.passAtK, `SOP-Bench ${r.domain}: pass^k (${r.n} runs)`));
  return Object.values(files);
}
