/**
 * Chat2Workflow end to end for one answers file: the pass stage (answers → `<Task>_<round>.yml` for the
 * survivors, src/eval/answer-workflows.ts), then the resolve stage on the benchmark's own test cases
 * (src/eval/resolve-suite.ts), then a report of where every one of the 3 × 79 cases ends: the pass stage,
 * a run error (with its code and what the failing node needed), empty outputs, the file check, files only,
 * or the judge. The services (model endpoints, tools, files, HTTP) are whatever the caller built — the CLI
 * builds them from weft.config.json through src/runtime/services.ts — so configured tools are used as they
 * are; a tool nothing serves ends its case as a `tool.not_configured` error naming the provider/tool.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ExecServices } from "../ir/services.js";
import { type AnswerWorkflows, writeAnswerWorkflows } from "./answer-workflows.js";
import { type EndStateReport, summariseEndStates } from "./chat2workflow-report.js";
import type { Fidelity } from "./fidelity.js";
import type { ResolveJudgeFn } from "./metrics/resolve.js";
import type { AnswerRecord, Suite } from "./pass/dataset.js";
import type { PassJudge } from "./pass/judge.js";
import { loadChat2WorkflowSuite, type ResolveSuiteResult, runResolveSuite } from "./resolve-suite.js";
import type { UpstreamPrompt } from "./upstream/prompts.js";

export interface Chat2WorkflowOptions {
  /** The chat2workflow folder (holding dataset/ and case_files/). */
  datasetDir: string;
  caseFilesDir?: string;
  suite: Suite;
  records: readonly AnswerRecord[];
  model: string;
  /** Workflows go to `<outDir>/workflows`, the reports to `<outDir>/report.{md,json}`. */
  outDir: string;
  services: Partial<ExecServices>;
  passJudge?: PassJudge;
  resolveJudge?: ResolveJudgeFn;
  repair?: boolean;
  concurrency?: number;
  /** Default: none under upstream fidelity, 300 s under weft (src/eval/fidelity.ts). */
  caseTimeoutMs?: number;
  /** Whose rules decide survival and each case; default "upstream". */
  fidelity?: Fidelity;
  /** Upstream fidelity with a resolve judge: upstream's resolve prompt (loadUpstreamPrompt). */
  upstreamPrompt?: UpstreamPrompt;
  judgeRetryDelayMs?: number;
  onProgress?: (stage: "pass" | "resolve", done: number, total: number) => void;
}

export interface Chat2WorkflowResult {
  workflows: AnswerWorkflows;
  resolve: ResolveSuiteResult;
  report: EndStateReport;
  files: { markdown: string; json: string; workflows: string };
}

export async function runChat2Workflow(o: Chat2WorkflowOptions): Promise<Chat2WorkflowResult> {
  const fidelity = o.fidelity ?? "upstream";
  const out = resolve(o.outDir);
  const wfDir = join(out, "workflows");
  const workflows = await writeAnswerWorkflows(o.suite, o.records, o.model, wfDir, {
    repair: o.repair,
    judge: o.passJudge,
    fidelity,
    onProgress: (d, t) => o.onProgress?.("pass", d, t),
  });
  const suite = loadChat2WorkflowSuite(o.datasetDir, {
    workflowsDir: wfDir,
    ...(o.caseFilesDir ? { caseFilesDir: o.caseFilesDir } : {}),
  });
  const resolved = await runResolveSuite(suite, {
    services: o.services,
    judge: o.resolveJudge,
    concurrency: o.concurrency,
    caseTimeoutMs: o.caseTimeoutMs,
    fidelity,
    upstreamPrompt: o.upstreamPrompt,
    judgeRetryDelayMs: o.judgeRetryDelayMs,
    onProgress: (d, t) => o.onProgress?.("resolve", d, t),
  });
  const report = summariseEndStates(workflows, resolved, suite);
  const files = { markdown: join(out, "report.md"), json: join(out, "report.json"), workflows: wfDir };
  writeFileSync(files.markdown, report.markdown);
  writeFileSync(
    files.json,
    `${JSON.stringify(
      {
        model: o.model,
        fidelity,
        judgePrompt: o.upstreamPrompt
          ? {
              path: o.upstreamPrompt.path,
              sha256: o.upstreamPrompt.sha256,
              matchesUpstream: o.upstreamPrompt.matchesUpstream,
            }
          : undefined,
        pass: {
          decidedBy: workflows.decidedBy,
          step14: workflows.step14,
          repaired: workflows.repaired,
          survived: workflows.written,
          total: workflows.total,
        },
        resolve: { ...resolved, results: resolved.results.map(({ outputs: _o, ...r }) => r) },
        endStates: report.cases,
        byEndState: report.byEndState,
        fileChecks: report.fileChecks,
        tools: report.tools,
      },
      null,
      2,
    )}\n`,
  );
  return { workflows, resolve: resolved, report, files };
}
