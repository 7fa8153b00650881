import { useStore } from "../store";
import { loadCurrentDraft, overwriteWithMine, saveNow, useSaveState } from "./autosave";

/** Where the draft stands: saved on the server, about to be, or not (and why, with a way out). */
export function SaveStatus() {
  const st = useSaveState((s) => s.state);
  const canEdit = useStore((s) => s.can("app.edit"));
  if (!canEdit)
    return (
      <span
        className="save-status st-readonly"
        data-testid="save-status"
        data-state="readonly"
        title="your role may read this app, not change it"
      >
        Read-only
      </span>
    );
  const text =
    st.kind === "saved"
      ? "Saved"
      : st.kind === "pending" || st.kind === "saving"
        ? "Saving…"
        : st.kind === "error"
          ? `Not saved: ${st.message}`
          : "Not saved: conflict";
  return (
    <span
      className={`save-status st-${st.kind}`}
      data-testid="save-status"
      data-state={st.kind}
      title={st.kind === "saved" ? `draft revision ${st.revision ?? "?"}` : undefined}
    >
      {text}
      {st.kind === "error" && (
        <button type="button" className="link-btn small" data-testid="save-retry" onClick={() => void saveNow()}>
          retry
        </button>
      )}
    </span>
  );
}

/** A stale save: someone else saved the draft meanwhile. Nothing is overwritten until the user picks. */
export function DraftConflict() {
  const st = useSaveState((s) => s.state);
  if (st.kind !== "conflict") return null;
  return (
    <div className="notice error draft-conflict" data-testid="draft-conflict">
      <b>Someone else saved this draft</b> (revision {st.current.revision},{" "}
      {new Date(st.current.updatedAt).toLocaleTimeString()}) while you were editing; your edits since are not saved.{" "}
      <button type="button" data-testid="conflict-load" onClick={() => void loadCurrentDraft()}>
        Load their draft (drops your unsaved edits)
      </button>{" "}
      <button type="button" data-testid="conflict-keep" onClick={() => void overwriteWithMine()}>
        Keep mine (replaces theirs)
      </button>
    </div>
  );
}
