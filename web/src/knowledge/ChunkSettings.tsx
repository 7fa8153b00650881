/**
 * Chunk settings as Dify's form has them: the chunk mode (General, or Parent-child: small child chunks are
 * searched and their parent chunk is returned as the context), the parent's mode (Paragraph: cut by the
 * delimiter and maximum length; Full doc: the whole document), the child delimiter and maximum length, and
 * the text pre-processing rules both modes share.
 */
import type { Chunking } from "./knowledgeApi";

const num = (v: string) => (v.trim() === "" ? Number.NaN : Number(v));

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
  return (
    <fieldset className="kb-chunking" disabled={disabled} data-testid="kb-chunking" data-structure={chunking.structure}>
      <legend>Chunk settings</legend>
      <div className="kb-modes" role="radiogroup" aria-label="Chunk mode">
        <label>
          <input
            type="radio"
            name="kb-structure"
            data-testid="kb-structure-general"
            checked={!parentChild}
            onChange={() => change({ structure: "general" })}
          />{" "}
          General
        </label>
        <label>
          <input
            type="radio"
            name="kb-structure"
            data-testid="kb-structure-parent-child"
            checked={parentChild}
            onChange={() => change({ structure: "parent_child" })}
          />{" "}
          Parent-child{" "}
          <span className="muted small">(child chunks are searched, their parent is returned as the context)</span>
        </label>
      </div>
      {parentChild && (
        <div className="kb-modes" role="radiogroup" aria-label="Parent chunk for context">
          <span className="muted small">Parent chunk for context:</span>
          <label>
            <input
              type="radio"
              name="kb-parent-mode"
              data-testid="kb-parent-paragraph"
              checked={chunking.parentMode === "paragraph"}
              onChange={() => change({ parentMode: "paragraph" })}
            />{" "}
            Paragraph
          </label>
          <label>
            <input
              type="radio"
              name="kb-parent-mode"
              data-testid="kb-parent-full-doc"
              checked={chunking.parentMode === "full-doc"}
              onChange={() => change({ parentMode: "full-doc" })}
            />{" "}
            Full doc
          </label>
        </div>
      )}
      {paragraphs && (
        <>
          <label>
            {parentChild ? "Parent delimiter" : "Separator"}{" "}
            <input
              data-testid="kb-separator"
              value={chunking.separator}
              onChange={(e) => change({ separator: e.target.value })}
            />
          </label>
          <label>
            {parentChild ? "Parent maximum length" : "Maximum chunk length"}{" "}
            <input
              data-testid="kb-max-length"
              type="number"
              value={chunking.maxLength}
              onChange={(e) => change({ maxLength: num(e.target.value) })}
            />
          </label>
          {!parentChild && (
            <label>
              Chunk overlap{" "}
              <input
                data-testid="kb-overlap"
                type="number"
                value={chunking.overlap}
                onChange={(e) => change({ overlap: num(e.target.value) })}
              />
            </label>
          )}
        </>
      )}
      {parentChild && (
        <>
          <span className="muted small">Child chunk for retrieval:</span>
          <label>
            Child delimiter{" "}
            <input
              data-testid="kb-child-separator"
              value={chunking.subchunkSeparator}
              onChange={(e) => change({ subchunkSeparator: e.target.value })}
            />
          </label>
          <label>
            Child maximum length{" "}
            <input
              data-testid="kb-child-max-length"
              type="number"
              value={chunking.subchunkMaxLength}
              onChange={(e) => change({ subchunkMaxLength: num(e.target.value) })}
            />
          </label>
        </>
      )}
      <label>
        <input
          type="checkbox"
          checked={chunking.removeExtraSpaces}
          onChange={(e) => change({ removeExtraSpaces: e.target.checked })}
        />{" "}
        Replace consecutive spaces, newlines and tabs
      </label>
      <label>
        <input
          type="checkbox"
          checked={chunking.removeUrlsEmails}
          onChange={(e) => change({ removeUrlsEmails: e.target.checked })}
        />{" "}
        Delete all URLs and email addresses
      </label>
    </fieldset>
  );
}
