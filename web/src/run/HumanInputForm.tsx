import { useState } from "react";
import { type PausedForm, useStore } from "../store";

/** The form text with each `{{#$output.NAME#}}` shown as the name of the input that fills it. */
function formText(content: string): string {
  return content.replace(/\{\{#\$output\.([A-Za-z0-9_]+)#\}\}/g, "[$1]");
}

function initial(f: PausedForm): Record<string, string> {
  return Object.fromEntries(
    f.inputs.map((i) => [
      i.output_variable_name,
      typeof f.defaults[i.output_variable_name] === "string" ? (f.defaults[i.output_variable_name] as string) : "",
    ]),
  );
}

/** A paused run's human-input form: what it asks, its inputs and one button per action; answering resumes the run. */
export function HumanInputForm({ form }: { form: PausedForm }) {
  const answerForm = useStore((s) => s.answerForm);
  const [values, setValues] = useState<Record<string, string>>(() => initial(form));
  const [busy, setBusy] = useState(false);
  const answer = async (action: string) => {
    setBusy(true);
    try {
      await answerForm(form.id, action, values);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="human-form boxed" data-testid="human-input-form" data-form-id={form.id}>
      <div className="human-form-head">
        <b>{form.nodeTitle || form.nodeId}</b> waits for an answer
        {form.expiresAt !== null && (
          <span className="muted small"> · times out {new Date(form.expiresAt).toLocaleString()}</span>
        )}
      </div>
      <pre className="human-form-content" data-testid="human-input-content">
        {formText(form.content)}
      </pre>
      {form.inputs.map((i) => {
        const name = i.output_variable_name;
        const options =
          i.type === "select" && i.option_source?.type === "constant" && Array.isArray(i.option_source.value)
            ? (i.option_source.value as string[])
            : undefined;
        const set = (v: string) => setValues((x) => ({ ...x, [name]: v }));
        return (
          <div className="field" key={name}>
            <label htmlFor={`form-${name}`}>{name}</label>
            {options ? (
              <select
                id={`form-${name}`}
                data-testid={`form-input-${name}`}
                value={values[name] ?? ""}
                onChange={(e) => set(e.target.value)}
              >
                <option value="" />
                {options.map((o) => (
                  <option key={o}>{o}</option>
                ))}
              </select>
            ) : i.type === "paragraph" ? (
              <textarea
                id={`form-${name}`}
                data-testid={`form-input-${name}`}
                value={values[name] ?? ""}
                onChange={(e) => set(e.target.value)}
              />
            ) : (
              <p className="warn-text">
                File inputs are answered with `weft resume --input-file` or the service API for now.
              </p>
            )}
          </div>
        );
      })}
      <div className="human-form-actions">
        {form.actions.map((a) => (
          <button
            type="button"
            key={a.id}
            className={a.button_style === "primary" ? "primary" : ""}
            data-testid={`form-action-${a.id}`}
            disabled={busy}
            onClick={() => void answer(a.id)}
          >
            {a.title || a.id}
          </button>
        ))}
      </div>
    </div>
  );
}
