import { TypeIcon } from "../canvas/nodeLook";
import { DiagMessage } from "../components/DiagMessage";
import { valueText } from "../labels";
import { useStore } from "../store";
import type { FieldChange, Workflow } from "../types";
import { MARK_LABELS, nodeReview } from "./view";

function ChangeRow({ c, wf }: { c: FieldChange; wf: Workflow }) {
  return (
    <li className={`fchange fc-${c.kind}`} data-testid="field-change" data-field={c.field} data-kind={c.kind}>
      <div className="fchange-field">
        <code>{c.field}</code> <span className="muted small">{c.kind}</span>
      </div>
      {c.kind !== "added" && (
        <pre className="fchange-old" data-testid="field-old" role="note" aria-label="old value">
          {valueText(wf, c.old, 240)}
        </pre>
      )}
      {c.kind === "changed" && (
        <div className="fchange-arrow" aria-hidden="true">
          ↓
        </div>
      )}
      {c.kind !== "removed" && (
        <pre className="fchange-new" data-testid="field-new" role="note" aria-label="new value">
          {valueText(wf, c.new, 240)}
        </pre>
      )}
    </li>
  );
}

/** The inspector while a proposal is reviewed: the selected node's field changes old → new, read-only. */
export function ReviewInspector() {
  const review = useStore((s) => s.review)!;
  const selected = useStore((s) => s.selected);
  const types = useStore((s) => s.nodeTypes);
  const wf = review.view.workflow;
  const node = wf.nodes.find((n) => n.id === selected);
  if (!node)
    return (
      <div className="inspector" data-testid="inspector" data-review="summary">
        <h4>Proposed change</h4>
        <p data-testid="review-inspector-summary">{review.proposal.summary}</p>
        <p className="muted">
          Select a highlighted node to see its field changes, old → new. Nothing changes until Apply.
        </p>
        <ul className="review-nodes">
          {[
            ...review.proposal.diff.nodes.added,
            ...review.proposal.diff.nodes.changed,
            ...review.proposal.diff.nodes.removed,
          ].map((n) => (
            // biome-ignore lint/a11y/useKeyWithClickEvents: a pointer shortcut to the changed node, which the canvas selects too
            <li key={n.id} className={`mk-${review.view.nodes[n.id]}`} onClick={() => useStore.getState().select(n.id)}>
              {MARK_LABELS[review.view.nodes[n.id]!]} · {n.title || n.id}
            </li>
          ))}
        </ul>
      </div>
    );
  const r = nodeReview(review.proposal.diff, node.id);
  const info = types.find((t) => t.type === node.type);
  const diags = review.proposal.diagnostics.filter((d) => d.nodeId === node.id);
  return (
    <div className="inspector" data-testid="inspector" data-node={node.id} data-review={r.mark}>
      <div className="insp-head">
        <TypeIcon type={node.type} category={info?.category ?? ""} size={18} />
        <b className="insp-title">{node.title || node.id}</b>
      </div>
      <div className="insp-sub muted small">
        {info?.label ?? node.type} · <code>{node.id}</code>
        {r.mark === "changed" && r.oldType ? ` · was ${r.oldType}` : ""}
      </div>
      <p className={`review-mark mk-${r.mark}`} data-testid="review-node-mark">
        {r.mark === "added" && "New node in this proposal."}
        {r.mark === "removed" && "This proposal removes the node."}
        {r.mark === "changed" && `${r.fields.length} field change(s), old → new.`}
        {r.mark === "unchanged" && "Not changed by this proposal."}
      </p>
      {diags.map((d, i) => (
        <div key={i} className={`diag ${d.severity} boxed`} data-testid="node-diag">
          <DiagMessage wf={wf} message={d.message} />
        </div>
      ))}
      <ul className="fchanges" data-testid="field-changes">
        {r.fields.map((c, i) => (
          <ChangeRow key={i} c={c} wf={wf} />
        ))}
      </ul>
    </div>
  );
}
