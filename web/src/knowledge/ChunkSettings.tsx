/**
 * Chunk settings as Dify's form has them: the chunk mode (General, or Parent-child: small child chunks are
 * searched and their parent chunk is returned as the context), the parent's mode (Paragraph: cut by the
 * delimiter and maximum length; Full doc: the whole document), the child delimiter and maximum length, and
 * the text pre-processing rules both modes share.
 */
import type { ReactNode } from "react";
import type { Chunking } from "./knowledgeApi";

const num = (v: string) => (v.trim() === "" ? Number.NaN : Number(v));

type TextKey = "separator" | "subchunkSeparator";
type NumberKey = "maxLength" | "overlap" | "subchunkMaxLength";
type FlagKey = "removeExtraSpaces" | "removeUrlsEmails";

export function ChunkSettings({
  chunking,
  disabled,
  change,
}: {
  chunking: Chunking;
  disabled: boolean;
  change: (p: Partial<Chunking>) => void;
}) {
  const parentChild = chunking.structure === "parent_child";
  const paragraphs = !parentChild || chunking.parentMode === "paragraph";
  // One labelled input per kind of setting, each bound to its key of the chunking.
  const text = (label: ReactNode, k: TextKey, testId: string) => (
    <label>
      {label} <input data-testid={testId} value={chunking[k]} onChange={(e) => change({ [k]: e.target.value })} />
    </label>
  );
  const number = (label: ReactNode, k: NumberKey, testId: string) => (
    <label>
      {label}{" "}
      <input
        data-testid={testId}
        type="number"
        value={chunking[k]}
        onChange={(e) => change({ [k]: num(e.target.value) })}
      />
    </label>
  );
  const flag = (label: string, k: FlagKey) => (
    <label>
      <input type="checkbox" checked={chunking[k]} onChange={(e) => change({ [k]: e.target.checked })} /> {label}
    </label>
  );
  const choice = (name: string, testId: string, checked: boolean, pick: Partial<Chunking>, label: ReactNode) => (
    <label>
      <input type="radio" name={name} data-testid={testId} checked={checked} onChange={() => change(pick)} /> {label}
    </label>
  );
  return (
    <fieldset className="kb-chunking" disabled={disabled} data-testid="kb-chunking" data-structure={chunking.structure}>
      <legend>Chunk settings</legend>
      <div className="kb-modes" role="radiogroup" aria-label="Chunk mode">
        {choice("kb-structure", "kb-structure-general", !parentChild, { structure: "general" }, "General")}
        {choice(
          "kb-structure",
          "kb-structure-parent-child",
          parentChild,
          { structure: "parent_child" },
          <>
            Parent-child{" "}
            <span className="muted small">(child chunks are searched, their parent is returned as the context)</span>
          </>,
        )}
      </div>
      {parentChild && (
        <div className="kb-modes" role="radiogroup" aria-label="Parent chunk for context">
          <span className="muted small">Parent chunk for context:</span>
          {choice(
            "kb-parent-mode",
            "kb-parent-paragraph",
            chunking.parentMode === "paragraph",
            { parentMode: "paragraph" },
            "Paragraph",
          )}
          {choice(
            "kb-parent-mode",
            "kb-parent-full-doc",
            chunking.parentMode === "full-doc",
            { parentMode: "full-doc" },
            "Full doc",
          )}
        </div>
      )}
      {paragraphs && (
        <>
          {text(parentChild ? "Parent delimiter" : "Separator", "separator", "kb-separator")}
          {number(parentChild ? "Parent maximum length" : "Maximum chunk length", "maxLength", "kb-max-length")}
          {!parentChild && number("Chunk overlap", "overlap", "kb-overlap")}
        </>
      )}
      {parentChild && (
        <>
          <span className="muted small">Child chunk for retrieval:</span>
          {text("Child delimiter", "subchunkSeparator", "kb-child-separator")}
          {number("Child maximum length", "subchunkMaxLength", "kb-child-max-length")}
        </>
      )}
      {flag("Replace consecutive spaces, newlines and tabs", "removeExtraSpaces")}
      {flag("Delete all URLs and email addresses", "removeUrlsEmails")}
    </fieldset>
  );
}
