/**
 * The studio's Knowledge section, as Dify's: `/knowledge` lists the bases (and creates one), `/knowledge/:id`
 * is one base: its documents, adding one with chunk settings previewed first, and retrieval testing.
 */
import { useCallback, useEffect, useState } from "react";
import { Notice } from "../components/Notice";
import { StudioLink } from "../components/StudioLink";
import { TableHead } from "../components/TableHead";
import { go, knowledgePath, parseKnowledgePath } from "../route";
import { errText, useStore } from "../store";
import { KnowledgeBasePage } from "./KnowledgeBasePage";
import { createBase, type KnowledgeBase, listBases } from "./knowledgeApi";

export function KnowledgeSection({ path }: { path: string }) {
  const id = parseKnowledgePath(path)?.baseId;
  const canEdit = useStore((s) => s.can("knowledge.edit"));
  return (
    <div className="app-list knowledge" data-testid="knowledge-section">
      <header className="topbar">
        <h1>Weft</h1>
        <StudioLink path="/" data-testid="nav-apps">
          Apps
        </StudioLink>
        <StudioLink path="/knowledge" data-testid="nav-knowledge" className="current">
          Knowledge
        </StudioLink>
        <span className="spacer" />
        {!canEdit && (
          <span className="muted" data-testid="kb-read-only">
            Read-only
          </span>
        )}
      </header>
      <Notice />
      {id ? <KnowledgeBasePage key={id} id={id} /> : <KnowledgeList />}
    </div>
  );
}

function KnowledgeList() {
  const canEdit = useStore((s) => s.can("knowledge.edit"));
  const [bases, setBases] = useState<KnowledgeBase[]>();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const load = useCallback(() => listBases().then(setBases, (e) => useStore.getState().say("error", errText(e))), []);
  useEffect(() => void load(), [load]);
  const create = async () => {
    try {
      const b = await createBase({
        name: name.trim(),
        ...(description.trim() ? { description: description.trim() } : {}),
      });
      go(knowledgePath(b.id));
    } catch (e) {
      useStore.getState().say("error", errText(e));
    }
  };
  return (
    <>
      <form
        className="new-app"
        onSubmit={(e) => {
          e.preventDefault();
          void create();
        }}
      >
        <input
          placeholder="New knowledge base name"
          value={name}
          onChange={(e) => setName(e.target.value)}
          data-testid="kb-new-name"
          disabled={!canEdit}
        />
        <input
          placeholder="Description (optional)"
          value={description}
          onChange={(e) => setDescription(e.target.value)}
          data-testid="kb-new-description"
          disabled={!canEdit}
        />
        <button type="submit" data-testid="kb-create" disabled={!canEdit || !name.trim()}>
          Create knowledge base
        </button>
      </form>
      <table className="apps" data-testid="kb-list">
        <TableHead columns={["Name", "Id", "Documents", "Chunks", "Retrieval"]} />
        <tbody>
          {bases?.map((b) => (
            <tr key={b.id} data-testid="kb-row" data-kb={b.id}>
              <td>
                <StudioLink path={knowledgePath(b.id)}>{b.name}</StudioLink>
                {b.description && <div className="muted small">{b.description}</div>}
              </td>
              <td>
                <code>{b.id}</code>
              </td>
              <td>{b.documents}</td>
              <td>{b.chunks}</td>
              <td>{b.embeddingModel ? `hybrid (${b.embeddingModel})` : "keyword (BM25)"}</td>
            </tr>
          ))}
          {bases?.length === 0 && (
            <tr>
              <td colSpan={5} className="muted" data-testid="kb-empty">
                No knowledge bases yet{canEdit ? ": create one, then add documents." : "."}
              </td>
            </tr>
          )}
        </tbody>
      </table>
    </>
  );
}
