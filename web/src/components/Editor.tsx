import { useState } from "react";
import { download } from "../api";
import { addNode } from "../canvas/addNode";
import { Canvas } from "../canvas/Canvas";
import { NodePalette } from "../canvas/NodePalette";
import { leaveApp } from "../draft/autosave";
import { EditHistoryButtons } from "../draft/EditHistoryButtons";
import { PublishButton } from "../draft/PublishButton";
import { DraftConflict, SaveStatus } from "../draft/SaveStatus";
import { Inspector } from "../inspector/Inspector";
import { ReviewBar } from "../review/ReviewBar";
import { LogsPanel } from "../run/LogsPanel";
import { RunPanel } from "../run/RunPanel";
import { type Panel, useStore } from "../store";
import { TestsPanel } from "../tests/TestsPanel";
import { ChatPanel } from "./ChatPanel";
import { EnvPanel } from "./EnvPanel";
import { ImportDialog } from "./ImportDialog";
import { Notice } from "./Notice";
import { VersionsPanel } from "./VersionsPanel";

const PANELS: Array<[Panel, string]> = [
  ["inspector", "Inspector"],
  ["run", "Run"],
  ["chat", "Agent"],
  ["versions", "Versions"],
  ["logs", "Logs"],
  ["tests", "Tests"],
  ["env", "Env"],
];

/** "+ Node": the palette; with a node selected the new node follows it (as Dify's + on a node's handle). */
function AddNode() {
  const [open, setOpen] = useState(false);
  const pick = (type: string) => {
    setOpen(false);
    const s = useStore.getState();
    const from = s.draft?.nodes.find((x) => x.id === s.selected);
    const port = from ? s.ports[from.id]?.[0] : undefined;
    void addNode(type, from && port ? { after: { id: from.id, port } } : {});
  };
  return (
    <span className="add-node">
      <button type="button" data-testid="palette-open" aria-expanded={open} onClick={() => setOpen((o) => !o)}>
        + Node
      </button>
      {open && <NodePalette onPick={pick} onClose={() => setOpen(false)} />}
    </span>
  );
}

export function Editor() {
  const app = useStore((s) => s.app)!;
  const saved = useStore((s) => s.saved);
  const dirty = useStore((s) => s.dirty);
  const canEdit = useStore((s) => s.can("app.edit"));
  const panel = useStore((s) => s.panel);
  const diagnostics = useStore((s) => s.diagnostics);
  const reviewing = useStore((s) => !!s.review && !s.review.hidden);
  const [importing, setImporting] = useState(false);
  const { save, setPanel, importVersion, say, autoLayoutAll } = useStore.getState();
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.filter((d) => d.severity === "warning").length;
  return (
    <div className="editor" data-testid="editor">
      <header className="topbar">
        <button type="button" data-testid="back-to-apps" onClick={() => void leaveApp()}>
          ← Apps
        </button>
        <h2 data-testid="app-name">{app.name}</h2>
        <span className="muted">
          {app.mode} · draft of v{saved?.version ?? "?"}
          {dirty ? " (changed)" : ""}
        </span>
        <SaveStatus />
        <span className={`diag-count ${errors ? "error" : ""}`} data-testid="diag-count">
          {errors} error(s), {warnings} warning(s)
        </span>
        <span className="spacer" />
        <EditHistoryButtons disabled={reviewing || !canEdit} />
        {!reviewing && canEdit && <AddNode />}
        <button
          type="button"
          data-testid="auto-layout"
          disabled={reviewing || !canEdit}
          title="Lay out every node again (saved positions are replaced)"
          onClick={() => void autoLayoutAll()}
        >
          Auto-layout
        </button>
        <button type="button" data-testid="import-version" disabled={!canEdit} onClick={() => setImporting(true)}>
          Import
        </button>
        <button
          type="button"
          data-testid="export"
          onClick={() => download(`/api/apps/${app.id}/export`, "app.yml").catch((e) => say("error", String(e)))}
        >
          Export
        </button>
        <button
          type="button"
          data-testid="save"
          disabled={!dirty || !canEdit}
          title="Keep the draft as a version (it is autosaved either way)"
          onClick={() => void save()}
        >
          Save version
        </button>
        <PublishButton />
      </header>
      <DraftConflict />
      <Notice />
      <ReviewBar />
      {importing && (
        <ImportDialog
          title="Import a Dify DSL file as a new version"
          onImport={importVersion}
          onClose={() => setImporting(false)}
          onOpen={(r) => {
            setImporting(false);
            say(
              "ok",
              r.unchanged ? `no change: the file is version ${r.version} as it is` : `imported as version ${r.version}`,
            );
          }}
        />
      )}
      <div className="workspace">
        <Canvas />
        <aside className="side">
          <nav className="tabs">
            {PANELS.map(([p, label]) => (
              <button
                type="button"
                key={p}
                className={panel === p ? "active" : ""}
                data-testid={`tab-${p}`}
                onClick={() => setPanel(p)}
              >
                {label}
              </button>
            ))}
          </nav>
          <div className="panel-body">
            {panel === "inspector" && <Inspector />}
            {panel === "run" && <RunPanel />}
            {panel === "chat" && <ChatPanel />}
            {panel === "versions" && <VersionsPanel />}
            {panel === "logs" && <LogsPanel />}
            {panel === "tests" && <TestsPanel />}
            {panel === "env" && <EnvPanel />}
          </div>
        </aside>
      </div>
    </div>
  );
}
