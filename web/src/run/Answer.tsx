import { useState } from "react";
import { type AnswerForm, formMessage, splitAnswer } from "./answer-form";
import { answerHtml } from "./answer-markdown";

/** A chatflow answer as people read it: Markdown rendered (safely) and Dify's forms as forms. */
export function Answer({
  text,
  onSend,
  disabled,
}: {
  text: string;
  onSend?: (message: string) => void;
  disabled?: boolean;
}) {
  return (
    <div className="answer" data-testid="answer">
      {splitAnswer(text).map((p, i) =>
        p.kind === "markdown" ? (
          // biome-ignore lint/security/noDangerouslySetInnerHtml: answerHtml escapes raw HTML and keeps only safe link and image addresses (answer-markdown.ts)
          <div key={i} className="answer-md" dangerouslySetInnerHTML={{ __html: answerHtml(p.text) }} />
        ) : (
          <AnswerFormView key={i} form={p.form} onSend={onSend} disabled={disabled} />
        ),
      )}
    </div>
  );
}

function AnswerFormView({
  form,
  onSend,
  disabled,
}: {
  form: AnswerForm;
  onSend?: (message: string) => void;
  disabled?: boolean;
}) {
  const [values, setValues] = useState<Record<string, string>>(() =>
    Object.fromEntries(form.fields.map((f) => [f.name, f.value])),
  );
  const [sent, setSent] = useState(false);
  const set = (name: string, v: string) => setValues((s) => ({ ...s, [name]: v }));
  return (
    <form
      className="answer-form"
      data-testid="answer-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (!onSend || sent) return;
        setSent(true);
        onSend(formMessage(form, values));
      }}
    >
      {form.fields.map((f) => (
        // biome-ignore lint/a11y/noLabelWithoutControl: the label wraps its control, chosen below by the field's kind
        <label key={f.name} className="field">
          <span>{f.label || f.name}</span>
          {f.kind === "textarea" ? (
            <textarea
              name={f.name}
              placeholder={f.placeholder}
              value={values[f.name]}
              onChange={(e) => set(f.name, e.target.value)}
            />
          ) : f.kind === "select" ? (
            <select name={f.name} value={values[f.name]} onChange={(e) => set(f.name, e.target.value)}>
              {f.options.map((o) => (
                <option key={o} value={o}>
                  {o}
                </option>
              ))}
            </select>
          ) : f.kind === "checkbox" ? (
            <input
              type="checkbox"
              name={f.name}
              checked={values[f.name] === "true"}
              onChange={(e) => set(f.name, String(e.target.checked))}
            />
          ) : (
            <input
              type={f.kind === "datetime" ? "datetime-local" : f.kind}
              name={f.name}
              placeholder={f.placeholder}
              value={values[f.name]}
              onChange={(e) => set(f.name, e.target.value)}
            />
          )}
        </label>
      ))}
      <button type="submit" data-testid="answer-form-submit" disabled={disabled || sent || !onSend}>
        {form.submitLabel}
      </button>
    </form>
  );
}
