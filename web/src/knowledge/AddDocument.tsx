/**
 * Adding a document as Dify does: choose the file, set the chunking (the base's settings to start with),
 * preview the chunks it makes, then save it, the upload's progress shown. Changing a setting or the file
 * drops the preview, so what is previewed is what is saved.
 */
import { useEffect, useRef, useState } from "react";
import { errText } from "../store";
import { ChunkSettings } from "./ChunkSettings";
import {
  type Chunking,
  type ChunkPreview,
  type KnowledgeBase,
  maxDocumentBytes,
  previewChunks,
  uploadDocument,
} from "./knowledgeApi";

type Phase =
  | { kind: "idle" }
  | { kind: "previewing" }
  | { kind: "uploading"; sent: number }
  | { kind: "saved"; name: string; chunks: number }
  | { kind: "failed"; message: string };

/** `\n` in the separator box is the two characters, as Dify's form shows a newline separator. */
const shownSeparator = (s: string) => s.replace(/\n/g, "\\n").replace(/\t/g, "\\t");

export function AddDocument({
  base,
  canEdit,
  onAdded,
}: {
  base: KnowledgeBase;
  canEdit: boolean;
  onAdded: () => Promise<void>;
}) {
  const input = useRef<HTMLInputElement>(null);
  const [file, setFile] = useState<File>();
  const [chunking, setChunking] = useState<Chunking>({
    ...base.chunking,
    separator: shownSeparator(base.chunking.separator),
    subchunkSeparator: shownSeparator(base.chunking.subchunkSeparator),
  });
  const [preview, setPreview] = useState<ChunkPreview>();
  const [phase, setPhase] = useState<Phase>({ kind: "idle" });
  const [limit, setLimit] = useState<number>();
  useEffect(() => {
    maxDocumentBytes().then(setLimit, (e) => setPhase({ kind: "failed", message: errText(e) }));
  }, []);
  // A file past the server's limit is refused here, before its bytes are sent for nothing.
  const tooLarge = !!file && limit !== undefined && file.size > limit;
  const change = (p: Partial<Chunking>) => {
    setChunking((c) => ({ ...c, ...p }));
    setPreview(undefined);
  };
  const busy = phase.kind === "previewing" || phase.kind === "uploading";
  const doPreview = async () => {
    if (!file) return;
    setPhase({ kind: "previewing" });
    try {
      setPreview(await previewChunks(base.id, file, chunking));
      setPhase({ kind: "idle" });
    } catch (e) {
      setPhase({ kind: "failed", message: errText(e) });
    }
  };
  const save = async () => {
    if (!file) return;
    setPhase({ kind: "uploading", sent: 0 });
    try {
      const doc = await uploadDocument(base.id, file, chunking, (sent) => setPhase({ kind: "uploading", sent }));
      setPhase({ kind: "saved", name: doc.name, chunks: doc.chunks });
      setFile(undefined);
      setPreview(undefined);
      await onAdded();
    } catch (e) {
      setPhase({ kind: "failed", message: errText(e) });
    }
  };
  return (
    <section className="kb-add" data-testid="kb-add">
      <h4>Add a document</h4>
      {/* biome-ignore lint/a11y/noStaticElementInteractions lint/a11y/useKeyWithClickEvents: a pointer target that opens the hidden file input */}
      <div className="drop" onClick={() => canEdit && input.current?.click()} aria-disabled={!canEdit}>
        <span data-testid="kb-file-name">
          {file ? `${file.name} (${file.size} bytes)` : "Choose a file: PDF, DOCX, Markdown, HTML, text, CSV, XLSX…"}
        </span>
      </div>
      <input
        ref={input}
        type="file"
        hidden
        data-testid="kb-file"
        disabled={!canEdit}
        onChange={(e) => {
          const f = e.target.files?.[0];
          setFile(f);
          setPreview(undefined);
          setPhase(
            f && limit !== undefined && f.size > limit
              ? {
                  kind: "failed",
                  message: `document.too_large: ${f.name} is ${f.size} bytes; this server takes documents up to ${limit} bytes (the smaller of its request body limit and documents.maxBytes in weft.config.json)`,
                }
              : { kind: "idle" },
          );
          e.target.value = "";
        }}
      />
      <ChunkSettings chunking={chunking} disabled={!canEdit || busy} change={change} />
      <div className="kb-actions">
        <button
          type="button"
          data-testid="kb-preview"
          disabled={!canEdit || !file || busy || tooLarge}
          onClick={() => void doPreview()}
        >
          Preview chunks
        </button>
        <button
          type="button"
          data-testid="kb-save"
          disabled={!canEdit || !file || busy || tooLarge}
          onClick={() => void save()}
        >
          Save and process
        </button>
      </div>
      {phase.kind === "previewing" && <p className="muted">Reading and chunking…</p>}
      {phase.kind === "uploading" && (
        <div data-testid="kb-uploading">
          <progress data-testid="kb-progress" max={1} value={phase.sent} /> {Math.round(phase.sent * 100)}% sent
          {phase.sent >= 1 ? ", processing…" : ""}
        </div>
      )}
      {phase.kind === "saved" && (
        <p className="ok-text" data-testid="kb-saved">
          Added {phase.name}: {phase.chunks} chunks.
        </p>
      )}
      {phase.kind === "failed" && (
        <p className="diag error" data-testid="kb-add-error">
          {phase.message}
        </p>
      )}
      {preview && (
        <div className="kb-preview" data-testid="kb-preview-result">
          <p className="muted small" data-testid="kb-preview-total">
            {preview.total}{" "}
            {preview.chunking.structure === "parent_child" ? `parent chunk${preview.total === 1 ? "" : "s"}` : "chunks"}{" "}
            from {preview.characters} characters
            {preview.chunks.length < preview.total ? ` (the first ${preview.chunks.length} shown)` : ""}
          </p>
          {preview.chunks.map((c) => (
            <div key={c.position} className="kb-chunk" data-testid="kb-preview-chunk">
              <div className="muted small">
                {c.children ? "Parent " : ""}#{c.position + 1} · {c.characters} characters
                {c.children ? ` · ${c.children.length} child chunks` : ""}
              </div>
              {c.children ? <ChildChunks texts={c.children} /> : <div className="kb-chunk-text">{c.content}</div>}
            </div>
          ))}
        </div>
      )}
    </section>
  );
}

/** A parent's text as its child chunks, each marked (C-1, C-2, …) as Dify's preview shows them. */
function ChildChunks({ texts }: { texts: string[] }) {
  return (
    <div className="kb-chunk-text kb-children" data-testid="kb-preview-children">
      {texts.map((t, i) => (
        <span key={i} className="kb-child" data-testid="kb-preview-child">
          <b className="kb-child-label">C-{i + 1}</b> {t}
        </span>
      ))}
    </div>
  );
}
