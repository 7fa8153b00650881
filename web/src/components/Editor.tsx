import { useState } from "react";
import { api, download } from "../api";
import { errText, type Panel, useStore } from "../store";
import type { WfNode } from "../types";
import { Canvas } from "../canvas/Canvas";
import { savedPosition } from "../canvas/layout";
import { Inspector } from "../inspector/Inspector";
import { ReviewBar } from "../review/ReviewBar";
import { RunPanel } from "../run/RunPanel";
import { ImportDialog } from "./ImportDialog";
import { Notice } from "./Notice";
import { ChatPanel } from "./ChatPanel";
import { VersionsPanel } from "./VersionsPanel";
import { EnvPanel } from "./EnvPanel";
import { LogsPanel } from "../run/LogsPanel";
import { leaveApp } from "../draft/autosave";
import { PublishButton } from "../draft/PublishButton";
import { DraftConflict, SaveStatus } from "../draft/SaveStatus";

const PANELS: Array<[Panel, string]> = [
  ["inspector", "Inspector"],
  ["run", "Run"],
  ["chat", "Agent"],
  ["versions", "Versions"],
  ["logs", "Logs"],
  ["env", "Env"],
];

function AddNode() {
  const types = useStore((s) => s.nodeTypes);
  const [type, setType] = useState("");
  const add = async () => {
    const s = useStore.getState();
    const wf = s.draft;
    const info = types.find((t) => t.type === type);
    if (!wf || !info) return;
    let n = wf.nodes.length + 1;
    while (wf.nodes.some((x) => x.id === String(n))) n++;
    // A new node goes to the right of the selected one (or of the rightmost), where people look for it.
    const anchor = wf.nodes.find((x) => x.id === s.selected && !x.parentId) ?? [...wf.nodes].filter((x) => !x.parentId && savedPosition(x)).sort((a, b) => savedPosition(b)!.x - savedPosition(a)!.x)[0];
    const at = anchor && savedPosition(anchor) ? { x: savedPosition(anchor)!.x + 300, y: savedPosition(anchor)!.y } : { x: 0, y: 0 };
    // The server fits the type's example to this app: its start node's first variable, the configured model.
    let config: Record<string, unknown>;
    try {
      config = (await api<{ config: Record<string, unknown> }>("/api/node-template", { json: { type, workflow: wf } })).config;
    } catch (e) {
      s.say("error", `could not add the node: ${errText(e)}`);
      return;
    }
    const now = useStore.getState().draft;
    if (!now) return;
    const node: WfNode = { id: String(n), type, title: info.label, config, canvas: { position: at } };
    // Added with a node selected, it follows that node (as Dify's + on a node's handle), so it is reachable.
    const from = wf.nodes.find((x) => x.id === s.selected && !x.parentId);
    const port = from ? s.ports[from.id]?.[0] : undefined;
    const edges = from && port ? [...now.edges, { source: from.id, sourcePort: port, target: node.id }] : now.edges;
    s.setDraft({ ...now, nodes: [...now.nodes, node], edges });
    s.select(node.id);
    setType("");
  };
  return (
    <span className="add-node">
      <select value={type} onChange={(e) => setType(e.target.value)} data-testid="add-node-type">
        <option value="">+ node…</option>
        {types
          .filter((t) => !t.containerStart)
          .map((t) => (
            <option key={t.type} value={t.type}>
              {t.label}
            </option>
          ))}
      </select>
      <button type="button" disabled={!type} onClick={() => void add()}>
        Add
      </button>
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
        {!reviewing && canEdit && <AddNode />}
        <button type="button" data-testid="auto-layout" disabled={reviewing || !canEdit} title="Lay out every node again (saved positions are replaced)" onClick={() => void autoLayoutAll()}>
          Auto-layout
        </button>
        <button type="button" data-testid="import-version" disabled={!canEdit} onClick={() => setImporting(true)}>
          Import
        </button>
        <button type="button" data-testid="export" onClick={() => download(`/api/apps/${app.id}/export`, "app.yml").catch((e) => say("error", String(e)))}>
          Export
        </button>
        <button type="button" data-testid="save" disabled={!dirty || !canEdit} title="Keep the draft as a version (it is autosaved either way)" onClick={() => void save()}>
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
            say("ok", r.unchanged ? `no change: the file is version ${r.version} as it is` : `imported as version ${r.version}`);
          }}
        />
      )}
      <div className="workspace">
        <Canvas />
        <aside className="side">
          <nav className="tabs">
            {PANELS.map(([p, label]) => (
              <button type="button" key={p} className={panel === p ? "active" : ""} data-testid={`tab-${p}`} onClick={() => setPanel(p)}>
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
            {panel === "env" && <EnvPanel />}
          </div>
        </aside>
      </div>
    </div>
  );
}
