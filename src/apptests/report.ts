/** A test report as Markdown (for people, `report.md`) and the one line per failing case the review shows. */
import type { CaseResult, TestReport, TestTarget } from "./runner.js";

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

export function targetLabel(t: TestTarget): string {
  if (t.kind === "version") return `version ${t.version}`;
  if (t.kind === "draft") return `draft revision ${t.revision}`;
  return `draft revision ${t.revision} + proposal ${t.proposalId}`;
}

/** "case 'refund' fails at node 'Classify': answer: expected …, got …". */
export function failureLine(c: CaseResult): string {
  const f = c.failure;
  if (!f) return `case '${c.name}' passes`;
  const at = f.nodeTitle ? ` at node '${f.nodeTitle}'` : "";
  return `case '${c.name}' fails${at}: ${f.message}`;
}

export function reportMarkdown(r: TestReport): string {
  const lines = [
    `# Tests of app ${r.appId}: ${targetLabel(r.target)}`,
    "",
    `${r.passed}/${r.passed + r.failed} cases pass (each run ${r.k} time${r.k === 1 ? "" : "s"}); pass^${r.k} = ${pct(r.passHatK)}; ${(r.ms / 1000).toFixed(1)} s`,
  ];
  if (r.modelCalls) lines.push(`model calls: ${r.modelCalls.live} live, ${r.modelCalls.cached} from the replay cache`);
  lines.push("", "| case | result | runs passed | first failure | run |", "|---|---|---|---|---|");
  for (const c of r.cases) {
    const f = c.failure ? failureLine(c).replace(/\|/g, "\\|") : "";
    const run = (c.trials.find((t) => !t.pass) ?? c.trials[0])?.runId ?? "";
    lines.push(
      `| ${c.name.replace(/\|/g, "\\|")} | ${c.pass ? "pass" : "FAIL"} | ${c.passes}/${c.trials.length} | ${f} | ${run} |`,
    );
  }
  if (r.k > 1) {
    lines.push("", "| k | pass^k |", "|---|---|");
    r.curve.forEach((v, i) => {
      lines.push(`| ${i + 1} | ${pct(v)} |`);
    });
  }
  return `${lines.join("\n")}\n`;
}
