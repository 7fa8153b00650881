import { useState } from "react";
import { errText } from "../store";
import { CHECK_KINDS, type CheckDraft, CheckFormError, checkOf, draftOf, inputsOf, newCheck } from "./checkForm";
import type { CaseBody, CheckKind, TestCase } from "./types";

function CheckRow({
  d,
  i,
  onChange,
  onRemove,
}: {
  d: CheckDraft;
  i: number;
  onChange: (d: CheckDraft) => void;
  onRemove: () => void;
}) {
  const set =
    (k: keyof CheckDraft) => (e: React.ChangeEvent<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>) =>
      onChange({ ...d, [k]: e.target.value });
  const multiline = d.check === "exact" || d.check === "json_schema";
  return (
    <div className="check-row" data-testid="check-row" data-index={i}>
      <input
        className="check-output"
        placeholder="output"
        value={d.output}
        onChange={set("output")}
        aria-label="output"
        data-testid="check-output"
      />
      <select
        value={d.check}
        onChange={(e) => onChange({ ...d, check: e.target.value as CheckKind })}
        aria-label="check"
        data-testid="check-kind"
      >
        {CHECK_KINDS.map(([k, label]) => (
          <option key={k} value={k}>
            {label}
          </option>
        ))}
      </select>
      {d.check !== "file_type" &&
        (multiline ? (
          <textarea
            className="check-text"
            rows={2}
            value={d.text}
            onChange={set("text")}
            aria-label="expected"
            data-testid="check-text"
          />
        ) : (
          <input
            className="check-text"
            value={d.text}
            onChange={set("text")}
            aria-label="expected"
            data-testid="check-text"
          />
        ))}
      {d.check === "regex" && (
        <input className="check-small" placeholder="flags" value={d.flags} onChange={set("flags")} aria-label="flags" />
      )}
      {d.check === "number" && (
        <input
          className="check-small"
          placeholder="±"
          value={d.tolerance}
          onChange={set("tolerance")}
          aria-label="tolerance"
          data-testid="check-tolerance"
        />
      )}
      {d.check === "file_type" && (
        <>
          <input
            className="check-small"
            placeholder="extension"
            value={d.extension}
            onChange={set("extension")}
            aria-label="extension"
          />
          <input
            className="check-small"
            placeholder="MIME type"
            value={d.mimeType}
            onChange={set("mimeType")}
            aria-label="MIME type"
          />
          <select value={d.fileType} onChange={set("fileType")} aria-label="file kind">
            <option value="">any kind</option>
            {["image", "document", "audio", "video", "custom"].map((k) => (
              <option key={k}>{k}</option>
            ))}
          </select>
        </>
      )}
      <button type="button" title="Remove this check" data-testid="check-remove" onClick={onRemove}>
        ×
      </button>
    </div>
  );
}

/**
 * A case's name, inputs (JSON) and expectation checks, edited; Save sends the whole case (the server validates
 * it and its refusal is shown as it came, naming the field).
 */
export function CaseEditor({
  initial,
  onSave,
  onCancel,
}: {
  initial?: TestCase;
  onSave: (body: CaseBody) => Promise<void>;
  onCancel: () => void;
}) {
  const [name, setName] = useState(initial?.name ?? "");
  const [inputs, setInputs] = useState(JSON.stringify(initial?.inputs ?? {}, null, 1));
  const [checks, setChecks] = useState<CheckDraft[]>(initial ? initial.expect.map(draftOf) : [newCheck()]);
  const [rubric, setRubric] = useState(initial?.judge?.rubric ?? "");
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);

  const save = async () => {
    setError(undefined);
    let body: CaseBody;
    try {
      body = {
        name: name.trim(),
        inputs: inputsOf(inputs),
        expect: checks.map(checkOf),
        ...(initial?.sys ? { sys: initial.sys } : {}),
        ...(rubric.trim()
          ? {
              judge: {
                rubric: rubric.trim(),
                ...(initial?.judge?.reference ? { reference: initial.judge.reference } : {}),
              },
            }
          : {}),
        ...(initial?.sourceRunId ? { sourceRunId: initial.sourceRunId } : {}),
      };
    } catch (e) {
      if (e instanceof CheckFormError) return setError(e.message);
      throw e;
    }
    setBusy(true);
    try {
      await onSave(body);
    } catch (e) {
      setError(errText(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form
      className="case-editor"
      data-testid="case-editor"
      onSubmit={(e) => {
        e.preventDefault();
        void save();
      }}
    >
      <div className="field">
        <label htmlFor="case-name">Name</label>
        <input id="case-name" value={name} onChange={(e) => setName(e.target.value)} data-testid="case-name" />
      </div>
      <div className="field">
        <label htmlFor="case-inputs">Inputs (JSON)</label>
        <textarea
          id="case-inputs"
          rows={3}
          value={inputs}
          onChange={(e) => setInputs(e.target.value)}
          data-testid="case-inputs"
        />
      </div>
      <div className="field">
        {/* biome-ignore lint/a11y/noLabelWithoutControl: a caption over the list of checks, styled as the other fields' labels */}
        <label>Expected outputs</label>
        {checks.map((d, i) => (
          <CheckRow
            key={i}
            d={d}
            i={i}
            onChange={(n) => setChecks((cs) => cs.map((c, j) => (j === i ? n : c)))}
            onRemove={() => setChecks((cs) => cs.filter((_, j) => j !== i))}
          />
        ))}
        <button type="button" data-testid="check-add" onClick={() => setChecks((cs) => [...cs, newCheck()])}>
          + Check
        </button>
      </div>
      <div className="field">
        <label htmlFor="case-rubric">Judge rubric (optional; runs need a judge model)</label>
        <textarea
          id="case-rubric"
          rows={2}
          value={rubric}
          onChange={(e) => setRubric(e.target.value)}
          data-testid="case-rubric"
        />
      </div>
      {error && (
        <div className="diag error boxed" data-testid="case-error">
          {error}
        </div>
      )}
      <button type="submit" className="primary" disabled={busy} data-testid="case-save">
        Save case
      </button>
      <button type="button" onClick={onCancel} data-testid="case-cancel">
        Cancel
      </button>
    </form>
  );
}
