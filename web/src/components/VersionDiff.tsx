import { nodeTitle, valueText } from "../labels";
import type { EdgeSummary, FieldChange, Workflow, WorkflowDiff } from "../types";

/** Two versions' difference as people read it: nodes by title, fields by name, references by title. */
export function VersionDiff({ diff, wf }: { diff: WorkflowDiff; wf: Workflow | undefined }) {
  const edge = (e: EdgeSummary) =>
    `${nodeTitle(wf, e.source)}${e.sourcePort && e.sourcePort !== "source" ? ` (${e.sourcePort})` : ""} → ${nodeTitle(wf, e.target)}`;
  // Only what a person changed: positions and widget sizes on the canvas are not listed.
  const changed = diff.nodes.changed
    .map((c) => ({ ...c, changes: c.changes.filter((x) => x.path[0] !== "canvas") }))
    .filter((c) => c.changes.length > 0);
  const moved = diff.nodes.changed.length - changed.length;
  return (
    <div className="version-diff" data-testid="version-diff">
      {diff.nodes.added.map((n) => (
        <div key={`a${n.id}`} className="diff-part add" data-testid="diff-added">
          + {n.title || n.id} <span className="muted small">({n.type})</span>
        </div>
      ))}
      {diff.nodes.removed.map((n) => (
        <div key={`r${n.id}`} className="diff-part del" data-testid="diff-removed">
          − {n.title || n.id} <span className="muted small">({n.type})</span>
        </div>
      ))}
      {changed.map((c) => (
        <div key={`c${c.id}`} className="diff-part chg" data-testid="diff-changed" data-node-id={c.id}>
          <b>{c.title || nodeTitle(wf, c.id)}</b>
          <ul>
            {c.changes.map((x, i) => (
              <ChangeRow key={i} c={x} wf={wf} />
            ))}
          </ul>
        </div>
      ))}
      {moved > 0 && <div className="muted small">{moved} node(s) moved on the canvas</div>}
      {diff.edges.added.map((e, i) => (
        <div key={`ea${i}`} className="diff-part add" data-testid="diff-edge-added">
          + edge {edge(e)}
        </div>
      ))}
      {diff.edges.removed.map((e, i) => (
        <div key={`er${i}`} className="diff-part del" data-testid="diff-edge-removed">
          − edge {edge(e)}
        </div>
      ))}
      {diff.workflow.length > 0 && (
        <div className="diff-part chg">
          <b>Workflow settings</b>
          <ul>
            {diff.workflow.map((x, i) => (
              <ChangeRow key={i} c={x} wf={wf} />
            ))}
          </ul>
        </div>
      )}
    </div>
  );
}

function ChangeRow({ c, wf }: { c: FieldChange; wf: Workflow | undefined }) {
  return (
    <li data-testid="diff-field" data-field={c.field}>
      <code>{c.field}</code>{" "}
      {c.kind === "added" ? (
        <>set to {valueText(wf, c.new)}</>
      ) : c.kind === "removed" ? (
        <>removed (was {valueText(wf, c.old)})</>
      ) : (
        <>
          {valueText(wf, c.old)} → {valueText(wf, c.new)}
        </>
      )}
    </li>
  );
}
