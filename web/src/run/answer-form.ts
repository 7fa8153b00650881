/**
 * Dify's interactive answer forms: an answer may carry `<form data-format="json">` with labels, inputs,
 * textareas, selects, checkboxes and buttons; Dify's chat renders it as a form whose submission is the next
 * message — the values as JSON with data-format="json", else one "name: value" line per field.
 */

export interface AnswerField {
  name: string;
  label?: string;
  kind: "text" | "textarea" | "select" | "checkbox" | "number" | "date" | "time" | "datetime" | "email" | "password";
  placeholder?: string;
  value: string;
  options: string[];
}

export interface AnswerForm {
  format: "json" | "text";
  fields: AnswerField[];
  submitLabel: string;
}

export type AnswerPart = { kind: "markdown"; text: string } | { kind: "form"; form: AnswerForm; source: string };

const FORM = /<form\b[^>]*>[\s\S]*?<\/form>/gi;
const INPUT_KINDS = new Set(["text", "number", "date", "time", "datetime", "email", "password", "checkbox"]);

/** The answer as Markdown runs and forms, in order; a form that does not parse stays Markdown (shown as text). */
export function splitAnswer(answer: string): AnswerPart[] {
  const parts: AnswerPart[] = [];
  let at = 0;
  for (const m of answer.matchAll(FORM)) {
    const form = parseForm(m[0]);
    if (!form) continue;
    if (m.index! > at) parts.push({ kind: "markdown", text: answer.slice(at, m.index) });
    parts.push({ kind: "form", form, source: m[0] });
    at = m.index! + m[0].length;
  }
  if (at < answer.length) parts.push({ kind: "markdown", text: answer.slice(at) });
  return parts;
}

// DOMParser builds an inert document (no scripts run, nothing loads); only names and texts are read from it.
export function parseForm(html: string): AnswerForm | undefined {
  const doc = new DOMParser().parseFromString(html, "text/html");
  const form = doc.querySelector("form");
  if (!form) return undefined;
  const labels = new Map(
    [...form.querySelectorAll("label[for]")].map((l) => [l.getAttribute("for")!, l.textContent?.trim() ?? ""]),
  );
  const fields: AnswerField[] = [];
  for (const el of form.querySelectorAll("input, textarea, select")) {
    const name = el.getAttribute("name");
    if (!name) continue;
    const tag = el.tagName.toLowerCase();
    const type = (el.getAttribute("type") ?? "text").toLowerCase();
    if (tag === "input" && (type === "hidden" || type === "submit" || type === "button")) continue;
    const kind: AnswerField["kind"] =
      tag === "textarea"
        ? "textarea"
        : tag === "select"
          ? "select"
          : INPUT_KINDS.has(type)
            ? (type as AnswerField["kind"])
            : "text";
    const options =
      tag === "select"
        ? [...el.querySelectorAll("option")].map((o) => o.getAttribute("value") ?? o.textContent ?? "")
        : [];
    fields.push({
      name,
      label: labels.get(name) ?? labels.get(el.getAttribute("id") ?? "") ?? undefined,
      kind,
      placeholder: el.getAttribute("placeholder") ?? undefined,
      value:
        tag === "textarea"
          ? (el.textContent ?? "")
          : kind === "checkbox"
            ? el.hasAttribute("checked")
              ? "true"
              : "false"
            : (el.getAttribute("value") ?? options[0] ?? ""),
      options,
    });
  }
  if (fields.length === 0) return undefined;
  const button = form.querySelector("button, input[type=submit]");
  const submitLabel = (button?.textContent?.trim() || button?.getAttribute("value") || "Submit").slice(0, 60);
  return { format: form.getAttribute("data-format") === "json" ? "json" : "text", fields, submitLabel };
}

/** The next message a submitted form sends, as Dify's chat sends it. */
export function formMessage(form: AnswerForm, values: Record<string, string>): string {
  const result: Record<string, string | boolean> = {};
  for (const f of form.fields)
    result[f.name] = f.kind === "checkbox" ? values[f.name] === "true" : (values[f.name] ?? "");
  if (form.format === "json") return JSON.stringify(result);
  return Object.entries(result)
    .map(([k, v]) => `${k}: ${v}`)
    .join("\n");
}
