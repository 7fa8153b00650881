/**
 * The knowledge-retrieval node's `dataset_ids`: a choice among the bases this server has, not free text. Ids the
 * node names that no base here has (an imported app) stay listed, marked, until removed.
 */
import { useEffect, useState } from "react";
import { errText, useStore } from "../store";
import { type KnowledgeBase, listBases } from "./knowledgeApi";

export function KnowledgePicker({ value, onChange }: { value: unknown; onChange: (ids: string[]) => void }) {
  const canEdit = useStore((s) => s.can("app.edit"));
  const chosen = Array.isArray(value) ? value.map(String) : [];
  const [bases, setBases] = useState<KnowledgeBase[]>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    listBases().then(setBases, (e) => setError(errText(e)));
  }, []);
  const toggle = (id: string, on: boolean) => onChange(on ? [...chosen, id] : chosen.filter((c) => c !== id));
  const known = new Set(bases?.map((b) => b.id));
  const unknown = bases ? chosen.filter((id) => !known.has(id)) : [];
  return (
    <div className="kb-picker" data-testid="kb-picker">
      {error && <div className="diag error">{error}</div>}
      {!bases && !error && <div className="muted small">Loading knowledge bases…</div>}
      {bases?.length === 0 && (
        <div className="muted small">
          No knowledge bases on this server yet: create one under <a href="/knowledge">Knowledge</a>.
        </div>
      )}
      {bases?.map((b) => (
        <label key={b.id} className="kb-pick" data-testid="kb-pick" data-kb={b.id}>
          <input
            type="checkbox"
            disabled={!canEdit}
            checked={chosen.includes(b.id)}
            onChange={(e) => toggle(b.id, e.target.checked)}
          />{" "}
          {b.name}{" "}
          <span className="muted small">
            {b.documents} document{b.documents === 1 ? "" : "s"} · {b.chunks} chunks
          </span>
        </label>
      ))}
      {unknown.map((id) => (
        <div key={id} className="diag warning" data-testid="kb-pick-unknown">
          <code>{id}</code>: no such knowledge base on this server{" "}
          <button type="button" disabled={!canEdit} onClick={() => toggle(id, false)}>
            Remove
          </button>
        </div>
      ))}
    </div>
  );
}
