/** One knowledge base: its documents (chunk counts, delete), adding a document, and retrieval testing. */
import { useCallback, useEffect, useState } from "react";
import { TableHead } from "../components/TableHead";
import { go } from "../route";
import { errText, useStore } from "../store";
import { AddDocument } from "./AddDocument";
import { HitTest } from "./HitTest";
import {
  deleteBase,
  deleteDocument,
  getBase,
  type KnowledgeBase,
  type KnowledgeDocument,
  listDocuments,
} from "./knowledgeApi";

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
const size = (n: number) =>
  n < 1024 ? `${n} B` : n < 1024 * 1024 ? `${(n / 1024).toFixed(1)} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;

export function KnowledgeBasePage({ id }: { id: string }) {
  const canEdit = useStore((s) => s.can("knowledge.edit"));
  const [base, setBase] = useState<KnowledgeBase>();
  const [docs, setDocs] = useState<KnowledgeDocument[]>([]);
  const [missing, setMissing] = useState<string>();
  const load = useCallback(async () => {
    try {
      const [b, d] = await Promise.all([getBase(id), listDocuments(id)]);
      setBase(b);
      setDocs(d);
    } catch (e) {
      setMissing(errText(e));
    }
  }, [id]);
  useEffect(() => void load(), [load]);
  const remove = async (d: KnowledgeDocument) => {
    if (!confirm(`Delete ${d.name} and its ${d.chunks} chunks?`)) return;
    try {
      await deleteDocument(id, d.id);
      await load();
    } catch (e) {
      useStore.getState().say("error", errText(e));
    }
  };
  const removeBase = async () => {
    if (
      !base ||
      !confirm(
        `Delete the knowledge base ${base.name} with its ${base.documents} documents? Apps naming it will warn that it is missing.`,
      )
    )
      return;
    try {
      await deleteBase(base.id);
      go("/knowledge");
    } catch (e) {
      useStore.getState().say("error", errText(e));
    }
  };
  if (missing)
    return (
      <p className="diag error" data-testid="kb-missing">
        {missing}
      </p>
    );
  if (!base) return <p className="muted">Loading…</p>;
  return (
    <div className="kb-page" data-testid="kb-page" data-kb={base.id}>
      <div className="kb-head">
        <div className="kb-title">
          <h2 data-testid="kb-name">{base.name}</h2>
          <button type="button" data-testid="kb-delete" disabled={!canEdit} onClick={() => void removeBase()}>
            Delete knowledge base
          </button>
        </div>
        <span className="muted small">
          <code>{base.id}</code> · {plural(base.documents, "document")} ·{" "}
          <span data-testid="kb-chunk-total">{base.chunks}</span> chunks ·{" "}
          {base.embeddingModel ? `hybrid search (BM25 + ${base.embeddingModel})` : "keyword search (BM25)"}
        </span>
        {base.description && <p className="muted">{base.description}</p>}
      </div>
      <div className="kb-columns">
        <div className="kb-col">
          <h4>Documents</h4>
          <table className="apps" data-testid="kb-documents">
            <TableHead columns={["Name", "Size", "Chunks", "Added", ""]} />
            <tbody>
              {docs.map((d) => (
                <tr key={d.id} data-testid="kb-document" data-name={d.name}>
                  <td>{d.name}</td>
                  <td>{size(d.size)}</td>
                  <td data-testid="kb-document-chunks">{d.chunks}</td>
                  <td>{new Date(d.createdAt).toLocaleString()}</td>
                  <td>
                    <button
                      type="button"
                      data-testid="kb-document-delete"
                      disabled={!canEdit}
                      onClick={() => void remove(d)}
                    >
                      Delete
                    </button>
                  </td>
                </tr>
              ))}
              {docs.length === 0 && (
                <tr>
                  <td colSpan={5} className="muted">
                    No documents yet.
                  </td>
                </tr>
              )}
            </tbody>
          </table>
          <AddDocument base={base} canEdit={canEdit} onAdded={load} />
        </div>
        <div className="kb-col">
          <HitTest base={base} />
        </div>
      </div>
    </div>
  );
}
