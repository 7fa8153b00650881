import { useEffect } from "react";
import { useSaveState } from "../draft/autosave";
import { useStore } from "../store";
import { VersionDiff } from "./VersionDiff";

export function VersionsPanel() {
  const versions = useStore((s) => s.versions);
  const saved = useStore((s) => s.saved);
  const diff = useStore((s) => s.diff);
  const draft = useStore((s) => s.draft);
  const lastApplied = useStore((s) => s.lastApplied);
  // Edits after the AI change, saved or still waiting: the server refuses an undo that would lose them. It
  // judges by content (a save that changed nothing keeps Undo), so its answer is asked again at each revision.
  const draftRevision = useStore((s) => s.draftRevision);
  const undoState = useStore((s) => s.undoState);
  const checked = undoState !== undefined && undoState.revision === draftRevision;
  const movedOn = !checked || !undoState.available;
  const waiting = useSaveState((s) => s.state.kind !== "saved");
  const dirty = movedOn || waiting;
  useEffect(() => {
    if (lastApplied && !waiting && draftRevision !== undefined && undoState?.revision !== draftRevision)
      void useStore
        .getState()
        .checkUndo()
        .catch(() => undefined);
  }, [lastApplied, waiting, draftRevision, undoState?.revision]);
  const { showDiff, restore, undo } = useStore.getState();
  return (
    <div className="versions-panel" data-testid="versions-panel">
      {lastApplied && (
        <div className="undo-row">
          <button
            type="button"
            data-testid="undo"
            disabled={dirty}
            title={
              dirty
                ? "The draft has edits made after the AI change: undoing it would lose them"
                : "Put the draft back as it was before the last AI change"
            }
            onClick={() => void undo()}
          >
            Undo last AI change
          </button>
          <span className="muted small">
            {dirty
              ? "The draft has edits made after it: undo would lose them."
              : `puts the draft back as it was before “${lastApplied.summary}” (published versions are untouched)`}
          </span>
        </div>
      )}
      <ul className="versions">
        {[...versions].reverse().map((v) => (
          <li
            key={v.version}
            className={saved?.version === v.version ? "current" : ""}
            data-testid={`version-${v.version}`}
          >
            <span>
              v{v.version} · {v.source} · {new Date(v.createdAt).toLocaleTimeString()} · {v.nodes} nodes
            </span>
            {v.published && (
              <span className="pill st-succeeded" data-testid="version-published">
                published
              </span>
            )}
            {v.draft && (
              <span className="pill" data-testid="version-draft" title="the draft was made from this version">
                {dirty ? "draft (changed)" : "draft"}
              </span>
            )}
            {v.note && <div className="muted">{v.note}</div>}
            <span className="actions">
              {v.version > 1 && (
                <button type="button" onClick={() => void showDiff(v.version)}>
                  diff
                </button>
              )}
              {saved?.version !== v.version && (
                <button
                  type="button"
                  title="Make this version the draft (publish to make it live)"
                  onClick={() => void restore(v.version)}
                >
                  load
                </button>
              )}
            </span>
          </li>
        ))}
      </ul>
      {diff && (
        <div className="diff" data-testid="diff">
          <h4>
            v{diff.version} against v{diff.against ?? "∅"}
          </h4>
          {diff.diff.empty ? <p className="muted">no changes</p> : <VersionDiff diff={diff.diff} wf={draft} />}
        </div>
      )}
    </div>
  );
}
