import { useStore } from "../store";

export function VersionsPanel() {
  const versions = useStore((s) => s.versions);
  const saved = useStore((s) => s.saved);
  const diff = useStore((s) => s.diff);
  const dirty = useStore((s) => s.dirty);
  const { showDiff, restore, undo } = useStore.getState();
  const latest = versions.at(-1);
  const part = (label: string, xs: string[], cls: string) =>
    xs.length > 0 && (
      <div className={`diff-part ${cls}`}>
        <b>{label}</b> {xs.join(", ")}
      </div>
    );
  return (
    <div className="versions-panel" data-testid="versions-panel">
      {latest && latest.version > 1 && (
        <div className="undo-row">
          <button
            type="button"
            data-testid="undo"
            disabled={dirty}
            title={dirty ? "The draft has edits no version holds: Save version first" : "Restore the previous version as a new version"}
            onClick={() => void undo()}
          >
            Undo last change
          </button>
          <span className="muted small">{dirty ? "The draft has edits no version holds (they are autosaved): Save version first to undo." : `restores the version before it, as a new version (“${latest.note || latest.source}”)`}</span>
        </div>
      )}
      <ul className="versions">
        {[...versions].reverse().map((v) => (
          <li key={v.version} className={saved?.version === v.version ? "current" : ""} data-testid={`version-${v.version}`}>
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
                <button type="button" title="Make this version the draft (publish to make it live)" onClick={() => void restore(v.version)}>
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
          {part("+ nodes", diff.diff.nodesAdded, "add")}
          {part("− nodes", diff.diff.nodesRemoved, "del")}
          {part("~ nodes", diff.diff.nodesChanged, "chg")}
          {part("+ edges", diff.diff.edgesAdded, "add")}
          {part("− edges", diff.diff.edgesRemoved, "del")}
          {Object.values(diff.diff).every((x) => x.length === 0) && <p className="muted">no changes</p>}
        </div>
      )}
    </div>
  );
}
