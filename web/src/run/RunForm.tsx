import { Paperclip, X } from "lucide-react";
import { type ReactElement, useState } from "react";
import { uploadFile } from "../api";
import { errText } from "../store";

type Any = Record<string, any>;
export interface StartVar {
  variable: string;
  label?: string;
  type?: string;
  required?: boolean;
  options?: string[];
}

const isFileType = (t?: string) => t === "file" || t === "file-list";

/** A file input: uploads through the API's file store and keeps the file values the run takes. */
function FileInput({
  v,
  value,
  onChange,
}: {
  v: StartVar;
  value: Any[] | undefined;
  onChange: (files: Any[] | undefined) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string>();
  const many = v.type === "file-list";
  const files = value ?? [];
  return (
    <div className="file-input">
      {files.map((f, i) => (
        <span key={i} className="file-chip" data-testid="uploaded-file">
          <Paperclip size={12} /> {String(f.filename)}{" "}
          <span className="muted">({Math.max(1, Math.round(Number(f.size) / 1024))} KB)</span>
          <X
            size={12}
            className="var-chip-x"
            onClick={() =>
              onChange(files.filter((_, j) => j !== i).length ? files.filter((_, j) => j !== i) : undefined)
            }
          />
        </span>
      ))}
      {(many || files.length === 0) && (
        <input
          type="file"
          multiple={many}
          id={`input-${v.variable}`}
          data-testid={`input-${v.variable}`}
          disabled={busy}
          onChange={async (e) => {
            const chosen = [...(e.target.files ?? [])];
            e.target.value = "";
            if (!chosen.length) return;
            setBusy(true);
            setError(undefined);
            try {
              const up = await Promise.all(chosen.map(uploadFile));
              onChange(many ? [...files, ...up] : up.slice(0, 1));
            } catch (err) {
              setError(errText(err));
            } finally {
              setBusy(false);
            }
          }}
        />
      )}
      {busy && <span className="muted small">uploading…</span>}
      {error && <div className="diag error">{error}</div>}
    </div>
  );
}

/** The run form of the start node's inputs: the right control for each input type, files uploaded. */
export function RunInputs({ vars, values, onChange }: { vars: StartVar[]; values: Any; onChange: (v: Any) => void }) {
  const set = (k: string, x: unknown) => onChange({ ...values, [k]: x });
  return (
    <>
      {vars.map((v) => {
        const id = `input-${v.variable}`;
        const val = values[v.variable];
        let input: ReactElement;
        if (isFileType(v.type)) input = <FileInput v={v} value={val} onChange={(f) => set(v.variable, f)} />;
        else if (v.type === "select" && v.options?.length)
          input = (
            <select id={id} data-testid={id} value={val ?? ""} onChange={(e) => set(v.variable, e.target.value)}>
              <option value="" />
              {v.options.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          );
        else if (v.type === "paragraph" || v.type === "json_object")
          input = (
            <textarea id={id} data-testid={id} value={val ?? ""} onChange={(e) => set(v.variable, e.target.value)} />
          );
        else if (v.type === "checkbox")
          input = (
            <input
              id={id}
              data-testid={id}
              type="checkbox"
              checked={val === true}
              onChange={(e) => set(v.variable, e.target.checked)}
            />
          );
        else
          input = (
            <input
              id={id}
              data-testid={id}
              type={v.type === "number" ? "number" : "text"}
              value={val ?? ""}
              onChange={(e) => set(v.variable, e.target.value)}
            />
          );
        return (
          <div className="field" key={v.variable}>
            <label htmlFor={id}>
              {v.label || v.variable}
              {v.required ? " *" : ""} <span className="muted small">{v.type}</span>
            </label>
            {input}
          </div>
        );
      })}
    </>
  );
}

/** Form values → run inputs: empty fields left out, numbers as numbers, a single file as one value. */
export function toInputs(vars: StartVar[], values: Any): Any {
  const inputs: Any = {};
  for (const v of vars) {
    const raw = values[v.variable];
    if (raw === undefined || raw === "") continue;
    if (v.type === "number") inputs[v.variable] = Number(raw);
    else if (v.type === "file") inputs[v.variable] = Array.isArray(raw) ? raw[0] : raw;
    else inputs[v.variable] = raw;
  }
  return inputs;
}
