/**
 * A proposal's proof, made before the user decides (issue 34 item 3): the app's test cases run on the draft
 * with the proposal and on the draft alone ("tests: 7/8 pass (was 8/8): case 'refund' fails at node
 * 'Classify': …"); an app without cases gets a dry run on its last successful run's inputs, and says so. One
 * implementation for the studio chat, `weft chat` and POST /proposals (src/authoring/editing.ts calls it).
 * Model answers of nodes whose request is unchanged come from the replay cache: the draft's run and the
 * proposal's share them, so only nodes the proposal changed call the model.
 */
import { runWorkflow } from "../engine/run.js";
import type { Workflow } from "../ir/workflow.js";
import type { ProposalTestFailure, ProposalTests } from "../store/apps.js";
import { AppTestError } from "./errors.js";
import { failureLine } from "./report.js";
import type { TestReport } from "./runner.js";
import { AppTests, type AppTestsDeps } from "./service.js";

const MAX_FAILURES = 5;

function failuresOf(r: TestReport): ProposalTestFailure[] {
  return r.cases
    .filter((c) => !c.pass)
    .map((c) => ({
      caseId: c.id,
      caseName: c.name,
      ...(c.failure?.nodeId ? { nodeId: c.failure.nodeId } : {}),
      ...(c.failure?.nodeTitle ? { nodeTitle: c.failure.nodeTitle } : {}),
      message: failureLine(c),
      runId: c.trials.find((t) => !t.pass)?.runId,
    }));
}

function casesLine(now: TestReport, was: TestReport | undefined, failures: ProposalTestFailure[]): string {
  const total = now.passed + now.failed;
  const before = was ? ` (was ${was.passed}/${was.passed + was.failed})` : "";
  const shown = failures.slice(0, MAX_FAILURES).map((f) => f.message);
  const more = failures.length > MAX_FAILURES ? [`and ${failures.length - MAX_FAILURES} more`] : [];
  return [`tests: ${now.passed}/${total} pass${before}`, ...shown, ...more].join(": ");
}

export class ProposalProver {
  private readonly tests: AppTests;

  constructor(private readonly deps: AppTestsDeps) {
    this.tests = new AppTests(deps);
  }

  /** The proof of `proposed` against `base` (the draft it was made from). Never throws for a test's failure. */
  async prove(appId: string, base: Workflow, proposed: Workflow, revision?: number): Promise<ProposalTests> {
    const cases = await this.tests.list(appId);
    if (cases.length === 0) return this.dryRun(appId, proposed);
    try {
      const o = { replay: true };
      const was = await this.tests.runOn(appId, base, { kind: "draft", revision }, o);
      const now = await this.tests.runOn(appId, proposed, { kind: "proposal", revision }, o);
      const failures = failuresOf(now);
      return {
        mode: "cases",
        passed: now.passed,
        failed: now.failed,
        was: { passed: was.passed, failed: was.failed },
        failures,
        line: casesLine(now, was, failures),
      };
    } catch (e) {
      // A case the tests cannot run (a rubric without a judge model) is said, not hidden as a pass.
      if (!(e instanceof AppTestError)) throw e;
      return { mode: "none", passed: 0, failed: 0, failures: [], line: `tests not run: ${e.message}` };
    }
  }

  private async dryRun(appId: string, proposed: Workflow): Promise<ProposalTests> {
    const last = (await this.deps.stores.runs.listRuns({ appId, limit: 50 })).find(
      (r) => r.status === "succeeded" || r.status === "partial-succeeded",
    );
    if (!last)
      return {
        mode: "none",
        passed: 0,
        failed: 0,
        failures: [],
        line: `tests: none (app ${appId} has no test cases and no successful run to dry-run on; add a case with \`weft tests add ${appId} --from-run RUN_ID\` or the studio's Tests tab)`,
      };
    const run = await runWorkflow(proposed, {
      inputs: last.inputs,
      services: this.deps.services,
      store: this.deps.stores.runs,
      env: this.deps.env ? await this.deps.env(appId) : undefined,
      maxTimeMs: 300_000,
    });
    const ok = run.status === "succeeded" || run.status === "partial-succeeded";
    const where = `no test cases: dry run on the inputs of run ${last.id} (the last successful one)`;
    if (ok) return { mode: "dry_run", passed: 1, failed: 0, failures: [], line: `${where}: ${run.status}` };
    const nodeId = run.error?.nodeId;
    const nodeTitle = proposed.nodes.find((n) => n.id === nodeId)?.title ?? nodeId;
    const message = `${run.error?.code ?? `run.${run.status}`}: ${run.error?.message ?? `the run ended ${run.status}`}`;
    const failure: ProposalTestFailure = {
      caseName: `run ${last.id}'s inputs`,
      ...(nodeId ? { nodeId } : {}),
      ...(nodeTitle ? { nodeTitle } : {}),
      message,
      runId: run.runId,
    };
    return {
      mode: "dry_run",
      passed: 0,
      failed: 1,
      failures: [failure],
      line: `${where}: fails${nodeTitle ? ` at node '${nodeTitle}'` : ""}: ${message}`,
    };
  }
}
