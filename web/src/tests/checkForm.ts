/**
 * A check as the case editor edits it (text fields) and back. Text that does not read as what the check
 * needs (JSON for exact values and schemas, a number) is refused with the output and field named — never
 * guessed into something else; the server checks the rest (a regular expression, a schema Ajv compiles).
 */
import type { CheckKind, OutputCheck } from "./types";

export const CHECK_KINDS: Array<[CheckKind, string]> = [
  ["exact", "equals (JSON)"],
  ["contains", "contains"],
  ["regex", "matches regex"],
  ["json_schema", "fits JSON Schema"],
  ["number", "number ± tolerance"],
  ["file_type", "file of type"],
];

export interface CheckDraft {
  output: string;
  check: CheckKind;
  /** exact: JSON; contains: text; regex: the pattern; json_schema: JSON; number: the value. */
  text: string;
  flags: string;
  tolerance: string;
  extension: string;
  mimeType: string;
  fileType: string;
}

const blank = { flags: "", tolerance: "0", extension: "", mimeType: "", fileType: "" };

export function draftOf(c: OutputCheck): CheckDraft {
  switch (c.check) {
    case "exact":
      return { ...blank, output: c.output, check: c.check, text: JSON.stringify(c.value) ?? "null" };
    case "contains":
      return { ...blank, output: c.output, check: c.check, text: c.value };
    case "regex":
      return { ...blank, output: c.output, check: c.check, text: c.pattern, flags: c.flags ?? "" };
    case "json_schema":
      return { ...blank, output: c.output, check: c.check, text: JSON.stringify(c.schema, null, 1) };
    case "number":
      return { ...blank, output: c.output, check: c.check, text: String(c.value), tolerance: String(c.tolerance) };
    case "file_type":
      return {
        ...blank,
        output: c.output,
        check: c.check,
        text: "",
        extension: c.extension ?? "",
        mimeType: c.mimeType ?? "",
        fileType: c.fileType ?? "",
      };
  }
}

export const newCheck = (output = ""): CheckDraft => ({ ...blank, output, check: "contains", text: "" });

export class CheckFormError extends Error {}

function json(d: CheckDraft, what: string): unknown {
  try {
    return JSON.parse(d.text);
  } catch (e) {
    throw new CheckFormError(
      `${d.output || "(no output)"}: ${what} is not JSON (${(e as Error).message}); write strings in quotes`,
    );
  }
}

function num(d: CheckDraft, raw: string, what: string): number {
  const n = Number(raw);
  if (raw.trim() === "" || !Number.isFinite(n))
    throw new CheckFormError(`${d.output || "(no output)"}: ${what} must be a number, not ${JSON.stringify(raw)}`);
  return n;
}

const opt = (k: string, v: string) => (v.trim() ? { [k]: v.trim() } : {});

export function checkOf(d: CheckDraft): OutputCheck {
  const output = d.output.trim();
  if (!output) throw new CheckFormError("a check names no output: write the output's name");
  switch (d.check) {
    case "exact":
      return { output, check: "exact", value: json(d, "the expected value") };
    case "contains":
      return { output, check: "contains", value: d.text };
    case "regex":
      return { output, check: "regex", pattern: d.text, ...opt("flags", d.flags) };
    case "json_schema": {
      const schema = json(d, "the schema");
      if (!schema || typeof schema !== "object" || Array.isArray(schema))
        throw new CheckFormError(`${output}: the schema must be a JSON object`);
      return { output, check: "json_schema", schema: schema as Record<string, unknown> };
    }
    case "number":
      return {
        output,
        check: "number",
        value: num(d, d.text, "the expected value"),
        tolerance: num(d, d.tolerance, "the tolerance"),
      };
    case "file_type":
      return {
        output,
        check: "file_type",
        ...opt("extension", d.extension),
        ...opt("mimeType", d.mimeType),
        ...opt("fileType", d.fileType),
      };
  }
}

/** The inputs box: a JSON object of start-variable values. */
export function inputsOf(text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new CheckFormError(`inputs are not JSON (${(e as Error).message})`);
  }
  if (!v || typeof v !== "object" || Array.isArray(v))
    throw new CheckFormError("inputs must be a JSON object of start-variable values");
  return v as Record<string, unknown>;
}
