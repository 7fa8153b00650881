import { useState } from "react";
import { download } from "../api";
import { type Panel, useStore } from "../store";
import type { WfNode } from "../types";
import { ImportButton } from "./AppList";
import { Canvas } from "./Canvas";
import { ChatPanel } from "./ChatPanel";
import { Inspector } from "./Inspector";
import { RunPanel } from "./RunPanel";
import { VersionsPanel } from "./VersionsPanel";

const PANELS: Array<[Panel, string]> = [
  ["inspector", "Inspector"],
  ["run", "Run"],
  ["chat", "Agent"],
  ["versions", "Versions"],
];

function AddNode() {
  const types = useStore((s) => s.nodeTypes);
  const [type, setType] = useState("");
  const add = () => {
    const s = useStore.getState();
    const wf = s.draft;
    const info = types.find((t) => t.type === type);
    if (!wf || !info) return;
    let n = wf.nodes.length + 1;
    while (wf.nodes.some((x) => x.id === String(n))) n++;
    const node: WfNode = { id: String(n), type, title: info.label, config: structuredClone(info.example ?? {}) };
    s.setDraft({ ...wf, nodes: [...wf.nodes, node] });
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
      <button type="button" disabled={!type} onClick={add}>
        Add
      </button>
    </span>
  );
}

export function Editor() {
  const app = useStore((s) => s.app)!;
  const saved = useStore((s) => s.saved);
  const dirty = useStore((s) => s.dirty);
  const panel = useStore((s) => s.panel);
  const diagnostics = useStore((s) => s.diagnostics);
  const notice = useStore((s) => s.notice);
  const { closeApp, save, setPanel, importVersion, say } = useStore.getState();
  const errors = diagnostics.filter((d) => d.severity === "error").length;
  const warnings = diagnostics.filter((d) => d.severity === "warning").length;
  return (
    <div className="editor" data-testid="editor">
      <header className="topbar">
        <button type="button" onClick={closeApp}>
          ← Apps
        </button>
        <h2 data-testid="app-name">{app.name}</h2>
        <span className="muted">
          {app.mode} · v{saved?.version ?? "?"}
          {dirty ? " · unsaved" : ""}
        </span>
        <span className={`diag-count ${errors ? "error" : ""}`} data-testid="diag-count">
          {errors} error(s), {warnings} warning(s)
        </span>
        <span className="spacer" />
        <AddNode />
        <button type="button" onClick={() => useStore.setState((s) => ({ layoutNonce: s.layoutNonce + 1 }))}>
          Auto-layout
        </button>
        <ImportButton label="Import" testId="import-version" onText={(t) => void importVersion(t)} />
        <button type="button" data-testid="export" onClick={() => download(`/api/apps/${app.id}/export`, "app.yml").catch((e) => say("error", String(e)))}>
          Export
        </button>
        <button type="button" data-testid="save" disabled={!dirty} onClick={() => void save()}>
          Save
        </button>
      </header>
      {notice && (
        <div className={`notice ${notice.kind}`} data-testid="notice" onClick={() => useStore.setState({ notice: undefined })}>
          {notice.text}
        </div>
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
          </div>
        </aside>
      </div>
    </div>
  );
}
