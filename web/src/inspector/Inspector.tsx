import { TypeIcon } from "../canvas/nodeLook";
import { DiagList } from "../components/DiagList";
import { DiagMessage } from "../components/DiagMessage";
import { ReviewInspector } from "../review/ReviewInspector";
import { useStore } from "../store";
import { TriggerPanel } from "../triggers/TriggerPanel";
import type { Diagnostic } from "../types";
import { FIELD_OPTIONS, NODE_FORMS, TEMPLATE_PATHS } from "./nodeForms";
import { FieldDiags, SchemaForm } from "./SchemaForm";

type Any = Record<string, any>;

/** Every problem of the draft, named by node title; a click selects the node. */
function DiagnosticList({ diagnostics }: { diagnostics: Diagnostic[] }) {
  const wf = useStore((s) => s.draft);
  const general = diagnostics.filter((d) => !d.nodeId);
  return (
    <div className="inspector" data-testid="inspector">
      <p className="muted">Select a node to edit it.</p>
      <h4>Problems</h4>
      {diagnostics.length === 0 && <p className="muted">No problems found.</p>}
      <DiagList wf={wf} diagnostics={[...general, ...diagnostics.filter((d) => d.nodeId)]} />
    </div>
  );
}

export function Inspector() {
  const draft = useStore((s) => s.draft);
  const selected = useStore((s) => s.selected);
  const types = useStore((s) => s.nodeTypes);
  const diagnostics = useStore((s) => s.diagnostics);
  const reviewing = useStore((s) => !!s.review && !s.review.hidden);
  const { updateNode, setDraft } = useStore.getState();
  const node = draft?.nodes.find((n) => n.id === selected);
  if (reviewing) return <ReviewInspector />;
  if (!draft) return null;
  if (!node) return <DiagnosticList diagnostics={diagnostics} />;
  const info = types.find((t) => t.type === node.type);
  const nodeDiags = diagnostics.filter((d) => d.nodeId === node.id);
  const spec = NODE_FORMS[node.type] ?? { sections: [] };
  const config = node.config as Any;
  const patch = (p: Any) => {
    const next = { ...config, ...p };
    for (const k of Object.keys(p)) if (p[k] === undefined) delete next[k];
    updateNode(node.id, { config: next });
  };
  const removeEdgesFrom = (port: string) => {
    const wf = useStore.getState().draft!;
    setDraft({ ...wf, edges: wf.edges.filter((e) => !(e.source === node.id && e.sourcePort === port)) });
  };
  const skip = new Set([...spec.sections.flatMap((s) => s.keys), ...(spec.hide ?? [])]);
  const keyDiags = (keys: string[]) =>
    nodeDiags.filter(
      (d) => d.field && keys.some((k) => d.field === k || d.field!.startsWith(`${k}.`) || d.field!.startsWith(`${k}[`)),
    );
  const ctx = {
    nodeId: node.id,
    templates: new Set(TEMPLATE_PATHS[node.type] ?? []),
    options: FIELD_OPTIONS[node.type],
  };
  return (
    // Leaving a field ends its undo step: typing in one field is one step, the next field another.
    <div
      className="inspector"
      data-testid="inspector"
      data-node={node.id}
      onBlurCapture={() => useStore.getState().endEditStep()}
    >
      <div className="insp-head">
        <TypeIcon type={node.type} category={info?.category ?? ""} size={18} />
        <input
          className="insp-title"
          data-testid="field-title"
          value={node.title}
          placeholder={info?.label ?? node.type}
          onChange={(e) => updateNode(node.id, { title: e.target.value })}
        />
      </div>
      <div className="insp-sub muted small">
        {info?.label ?? node.type} · <code>{node.id}</code>
      </div>
      {info && <p className="muted small">{info.purpose}</p>}
      {nodeDiags
        .filter((d) => !d.field)
        .map((d, i) => (
          <div key={i} className={`diag ${d.severity} boxed`} data-testid="node-diag">
            <DiagMessage wf={draft} message={d.message} />
          </div>
        ))}
      {node.type.startsWith("trigger-") && (
        <section className="insp-section" data-testid="section-Trigger">
          <h5>Trigger</h5>
          <TriggerPanel key={node.id} nodeId={node.id} />
        </section>
      )}
      {spec.sections.map((s) => (
        <section className="insp-section" key={s.title} data-testid={`section-${s.title}`}>
          <h5>{s.title}</h5>
          {s.render({
            nodeId: node.id,
            config,
            patch,
            replace: (c) => updateNode(node.id, { config: c }),
            removeEdgesFrom,
          })}
          <FieldDiags diags={keyDiags(s.keys)} />
        </section>
      ))}
      <section className="insp-section">
        {spec.sections.length > 0 && <h5>Settings</h5>}
        <SchemaForm
          key={node.id}
          schema={info?.schema ?? null}
          value={config}
          diagnostics={nodeDiags}
          onChange={(c) => updateNode(node.id, { config: c })}
          ctx={ctx}
          skip={skip}
        />
      </section>
    </div>
  );
}
