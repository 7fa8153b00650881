import { StudioLink } from "../components/StudioLink";
import { routePath } from "../route";
import { useStore } from "../store";
import type { CaseResult, TestReport } from "./types";

const targetText = (r: TestReport) =>
  r.target.kind === "version"
    ? `version ${r.target.version}`
    : r.target.kind === "draft"
      ? `the draft (revision ${r.target.revision})`
      : "a proposal";

/** A link to a test run's trace: the run's deep link, opened in the Run panel. */
export function TraceLink({ appId, runId, label = "trace" }: { appId: string; runId: string; label?: string }) {
  const path = routePath({ appId, runId });
  return (
    <StudioLink path={path} data-testid="test-trace-link" data-run-id={runId}>
      {label}
    </StudioLink>
  );
}

function CaseRow({ appId, c, k }: { appId: string; c: CaseResult; k: number }) {
  const f = c.failure;
  const failed = c.trials.find((t) => !t.pass) ?? c.trials[0];
  return (
    <li
      className={`test-result ${c.pass ? "pass" : "fail"}`}
      data-testid="test-result"
      data-case={c.name}
      data-pass={String(c.pass)}
    >
      <div className="test-result-head">
        <span className={`pill ${c.pass ? "st-succeeded" : "st-failed"}`}>{c.pass ? "pass" : "FAIL"}</span>
        <b>{c.name}</b>
        {k > 1 && (
          <span className="muted small" data-testid="test-passes">
            {c.passes}/{c.trials.length} runs passed
          </span>
        )}
        <span className="spacer" />
        {failed && <TraceLink appId={appId} runId={failed.runId} label={c.pass ? "trace" : "failing run's trace"} />}
      </div>
      {f && (
        <div className="test-failure small" data-testid="test-failure">
          {f.nodeTitle && (
            <span>
              at node{" "}
              {/* biome-ignore lint/a11y/useValidAnchor: a link-styled jump to the failing node on the canvas */}
              <a
                href="#"
                data-testid="test-failure-node"
                onClick={(e) => {
                  e.preventDefault();
                  if (f.nodeId) useStore.getState().select(f.nodeId);
                }}
              >
                {f.nodeTitle}
              </a>
              :{" "}
            </span>
          )}
          {f.kind === "check" ? (
            <>
              <code>{f.output}</code>
              <div className="expected-got">
                <span className="muted">expected</span> <code data-testid="test-expected">{f.expected}</code>
              </div>
              <div className="expected-got">
                <span className="muted">got</span> <code data-testid="test-got">{f.got}</code>
              </div>
            </>
          ) : (
            <span data-testid="test-failure-message">{f.message}</span>
          )}
        </div>
      )}
    </li>
  );
}

/** A run of the app's tests: the totals, pass^k, and per case its result, first failure and the run's trace. */
export function ReportView({ report }: { report: TestReport }) {
  const total = report.passed + report.failed;
  return (
    <div className="test-report" data-testid="test-report" data-passed={report.passed} data-failed={report.failed}>
      <p className={report.failed ? "err-text" : "ok-text"} data-testid="test-summary">
        {report.passed}/{total} case(s) pass on {targetText(report)} · pass^{report.k} = {report.passHatK.toFixed(3)}
        {report.k > 1 ? ` (${report.k} runs each)` : ""} · {(report.ms / 1000).toFixed(1)} s
        {report.modelCalls ? ` · model calls: ${report.modelCalls.live} live, ${report.modelCalls.cached} cached` : ""}
      </p>
      <ul className="test-results">
        {report.cases.map((c) => (
          <CaseRow key={c.id} appId={report.appId} c={c} k={report.k} />
        ))}
      </ul>
    </div>
  );
}
