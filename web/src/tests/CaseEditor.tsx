import { useState } from "react";
import { ErrorBox } from "../components/ErrorBox";
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
  /** A one-line input for a text field of the draft; test id `check-<field>`. */
  const input = (k: Exclude<keyof CheckDraft, "check">, className: string, label: string, placeholder?: string) => (
    <input
      className={className}
      placeholder={placeholder}
      value={d[k]}
      onChange={set(k)}
      aria-label={label}
      data-testid={`check-${k}`}
    />
  );
  const multiline = d.check === "exact" || d.check === "json_schema";
  return (
    <div className="check-row" data-testid="check-row" data-index={i}>
      {input("output", "check-output", "output", "output")}
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
          input("text", "check-text", "expected")
        ))}
      {d.check === "regex" && input("flags", "check-small", "flags", "flags")}
      {d.check === "number" && input("tolerance", "check-small", "tolerance", "±")}
      {d.check === "file_type" && (
        <>
          {input("extension", "check-small", "extension", "extension")}
          {input("mimeType", "check-small", "MIME type", "MIME type")}
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

  /** A labelled text field of the case, a textarea when it has rows; id and test id `case-<key>`. */
  const field = (key: string, label: string, value: string, set: (v: string) => void, rows?: number) => {
    const id = `case-${key}`;
    const onChange = (e: React.ChangeEvent<HTMLInputElement | HTMLTextAreaElement>) => set(e.target.value);
    return (
      <div className="field">
        <label htmlFor={id}>{label}</label>
        {rows ? (
          <textarea id={id} rows={rows} value={value} onChange={onChange} data-testid={id} />
        ) : (
          <input id={id} value={value} onChange={onChange} data-testid={id} />
        )}
      </div>
    );
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
      {field("name", "Name", name, setName)}
      {field("inputs", "Inputs (JSON)", inputs, setInputs, 3)}
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
      {field("rubric", "Judge rubric (optional; runs need a judge model)", rubric, setRubric, 2)}
      <ErrorBox error={error} testId="case-error" />
      <button type="submit" className="primary" disabled={busy} data-testid="case-save">
        Save case
      </button>
      <button type="button" onClick={onCancel} data-testid="case-cancel">
        Cancel
      </button>
    </form>
  );
}
