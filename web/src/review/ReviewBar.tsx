import { DiagList } from "../components/DiagList";
import { useSaveState } from "../draft/autosave";
import { useStore } from "../store";
import { TraceLink } from "../tests/ReportView";
import { diffCounts } from "./view";

/** The legend: each mark as its swatch (colour and line style) and its count. */
export function ReviewLegend() {
  const review = useStore((s) => s.review);
  if (!review) return null;
  const c = diffCounts(review.proposal.diff);
  return (
    <div className="review-legend" data-testid="review-legend" role="note" aria-label="legend of the proposed changes">
      <span className="lg lg-added">+ new node ({c.added})</span>
      <span className="lg lg-changed">~ changed ({c.changed})</span>
      <span className="lg lg-removed">− removed ({c.removed})</span>
      <span className="lg lg-edge-added">edge added ({c.edgesAdded})</span>
      <span className="lg lg-edge-removed">edge removed ({c.edgesRemoved})</span>
    </div>
  );
}

/**
 * A proposal under review, above the canvas: what it changes (computed from the diff), its problems, and the
 * decision. Nothing in the app changes until Apply; a stale proposal or unsaved edits are said, never overwritten.
 */
export function ReviewBar() {
  const review = useStore((s) => s.review);
  const draftRevision = useStore((s) => s.draftRevision);
  // Edits not yet autosaved: applying saves them first, which moves the draft past the proposal's base.
  const waiting = useSaveState((s) => s.state.kind !== "saved");
  if (!review) return null;
  const { applyProposal, rejectProposal, hideReview } = useStore.getState();
  const p = review.proposal;
  if (review.hidden)
    return (
      <div className="review-bar hidden" data-testid="review-bar" data-state="hidden">
        <span>An AI proposal is waiting for review (not applied).</span>
        <button type="button" data-testid="review-show" onClick={() => hideReview(false)}>
          Review proposal
        </button>
      </div>
    );
  const wf = review.view.workflow;
  const errors = p.diagnostics.filter((d) => d.severity === "error");
  const warnings = p.diagnostics.filter((d) => d.severity === "warning");
  // The editor's draft moved on since the proposal was made: the server would refuse it (draft.stale).
  const edited =
    !p.stale &&
    (waiting || (p.baseRevision !== undefined && draftRevision !== undefined && draftRevision !== p.baseRevision));
  const blocked = p.stale || edited || p.newErrors.length > 0 || p.diff.empty;
  return (
    <div className="review-bar" data-testid="review-bar" data-proposal={p.id} data-state="open">
      <div className="review-head">
        <b>AI proposal — not applied yet.</b>
        <span className="muted small">
          {p.source} · against draft revision {p.baseRevision ?? "?"}
          {p.instruction ? ` · “${p.instruction}”` : ""}
        </span>
        <span className="spacer" />
        <button
          type="button"
          data-testid="proposal-reject"
          disabled={review.busy}
          onClick={() => void rejectProposal()}
        >
          Reject
        </button>
        <button
          type="button"
          data-testid="review-hide"
          disabled={review.busy}
          title="Edit the current workflow; the proposal stays pending"
          onClick={() => hideReview(true)}
        >
          Back to editing
        </button>
        <button
          type="button"
          className="primary"
          data-testid="proposal-apply"
          disabled={review.busy || blocked}
          onClick={() => void applyProposal()}
        >
          Apply to draft
        </button>
      </div>
      <p className="review-summary" data-testid="proposal-summary">
        {p.summary}
      </p>
      {p.tests && (
        <div data-testid="proposal-tests" data-failed={p.tests.failed}>
          <p className={p.tests.failed > 0 ? "err-text" : "ok-text small"}>
            {/* With cases, the head here and each failing case below (its line, its run's trace). */}
            {p.tests.mode !== "cases"
              ? p.tests.line
              : `tests: ${p.tests.passed}/${p.tests.passed + p.tests.failed} pass${p.tests.was ? ` (was ${p.tests.was.passed}/${p.tests.was.passed + p.tests.was.failed})` : ""}`}
          </p>
          {p.tests.failures.length > 0 && (
            <ul className="diag-list small" data-testid="proposal-test-failures">
              {p.tests.failures.map((f) => (
                <li key={`${f.caseName}-${f.runId ?? ""}`} data-testid="proposal-test-failure" data-case={f.caseName}>
                  {f.message}
                  {f.runId && (
                    <>
                      {" "}
                      <TraceLink appId={p.appId} runId={f.runId} label="the failing run's trace" />
                    </>
                  )}
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
      {p.diff.workflow.length > 0 && (
        <p className="small" data-testid="proposal-workflow-changes">
          App settings: {p.diff.workflow.map((f) => f.field).join(", ")}
        </p>
      )}
      {p.stale && (
        <p className="warn-text" data-testid="proposal-stale">
          This proposal was made against draft revision {p.baseRevision ?? `(version ${p.baseVersion})`}; the draft has
          changed since (revision {draftRevision ?? "?"}). Applying it would overwrite those edits, so it cannot be
          applied: reject it and ask again.
        </p>
      )}
      {edited && (
        <p className="warn-text" data-testid="proposal-unsaved">
          You edited the draft after this proposal was made; it does not contain those edits and applying it would
          overwrite them, so it cannot be applied: reject it and ask again.
        </p>
      )}
      {p.newErrors.length > 0 && (
        <>
          <p className="err-text">It adds {p.newErrors.length} error(s) and cannot be applied. Nothing changed.</p>
          <DiagList wf={wf} diagnostics={p.newErrors} testId="proposal-new-errors" />
        </>
      )}
      {review.refusal && (
        <div className="review-refusal" data-testid="proposal-refusal">
          <p className="err-text">Not applied: {review.refusal.text}</p>
          {review.refusal.diagnostics.length > 0 && (
            <DiagList wf={wf} diagnostics={review.refusal.diagnostics} testId="proposal-refusal-diags" />
          )}
        </div>
      )}
      {errors.length + warnings.length > 0 && p.newErrors.length === 0 && (
        <details className="small" data-testid="proposal-diagnostics">
          <summary>
            Checks of the proposed workflow: {errors.length} error(s), {warnings.length} warning(s)
          </summary>
          <DiagList wf={wf} diagnostics={p.diagnostics} testId="proposal-diag-list" />
        </details>
      )}
      {errors.length + warnings.length === 0 && (
        <p className="ok-text small">Checks of the proposed workflow: no problems found.</p>
      )}
      <ReviewLegend />
    </div>
  );
}
