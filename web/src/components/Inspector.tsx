import { useStore } from "../store";
import { SchemaForm } from "./SchemaForm";

export function Inspector() {
  const draft = useStore((s) => s.draft);
  const selected = useStore((s) => s.selected);
  const types = useStore((s) => s.nodeTypes);
  const diagnostics = useStore((s) => s.diagnostics);
  const { updateNode } = useStore.getState();
  const node = draft?.nodes.find((n) => n.id === selected);
  if (!draft) return null;
  if (!node) {
    const general = diagnostics.filter((d) => !d.nodeId);
    return (
      <div className="inspector" data-testid="inspector">
        <p className="muted">Select a node to edit it.</p>
        <h4>Diagnostics</h4>
        {diagnostics.length === 0 && <p className="muted">No problems found.</p>}
        <ul className="diag-list">
          {[...general, ...diagnostics.filter((d) => d.nodeId)].map((d, i) => (
            <li key={i} className={`diag ${d.severity}`} onClick={() => d.nodeId && useStore.getState().select(d.nodeId)}>
              {d.nodeId ? `[${d.nodeId}] ` : ""}
              {d.code}: {d.message}
            </li>
          ))}
        </ul>
      </div>
    );
  }
  const info = types.find((t) => t.type === node.type);
  const nodeDiags = diagnostics.filter((d) => d.nodeId === node.id);
  return (
    <div className="inspector" data-testid="inspector" data-node={node.id}>
      <div className="insp-head">
        <span className="wf-type">{info?.label ?? node.type}</span> <code>{node.id}</code>
      </div>
      {info && <p className="muted">{info.purpose}</p>}
      <div className="field">
        <label htmlFor="field-title">title</label>
        <input id="field-title" data-testid="field-title" value={node.title} onChange={(e) => updateNode(node.id, { title: e.target.value })} />
      </div>
      {nodeDiags
        .filter((d) => !d.field)
        .map((d, i) => (
          <div key={i} className={`diag ${d.severity}`}>
            {d.code}: {d.message}
          </div>
        ))}
      <SchemaForm key={node.id} schema={info?.schema ?? null} value={node.config} diagnostics={nodeDiags} onChange={(config) => updateNode(node.id, { config })} />
    </div>
  );
}
