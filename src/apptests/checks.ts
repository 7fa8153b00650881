/**
 * One output against one check. A failure says what was expected and what came (both shortened for a
 * one-line report), so "case 'refund' fails: answer: expected to contain "refund", got "…"" needs nothing else.
 */
import { isDeepStrictEqual } from "node:util";
import { Ajv } from "ajv";
import { isFileValue, normaliseExtension } from "../eval/metrics/resolve.js";
import type { OutputCheck } from "../store/app-tests.js";

export interface CheckResult {
  output: string;
  check: OutputCheck["check"];
  pass: boolean;
  /** For a failure: what the check wanted and what the output was. */
  expected?: string;
  got?: string;
}

const ajv = new Ajv({ strict: false, allErrors: true });
const MAX_SHOWN = 200;

/** A value as one short line. */
export function shown(v: unknown): string {
  const s =
    v === undefined ? "(no such output)" : typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? String(v));
  return s.length > MAX_SHOWN ? `${s.slice(0, MAX_SHOWN)}…` : s;
}

const asText = (v: unknown): string => (typeof v === "string" ? v : (JSON.stringify(v) ?? ""));

function fileFailure(c: Extract<OutputCheck, { check: "file_type" }>, v: unknown): string | undefined {
  const files = Array.isArray(v) ? v : [v];
  if (files.length === 0) return "an empty list";
  for (const f of files) {
    if (!isFileValue(f)) return `not a file: ${shown(f)}`;
    const o = f as Record<string, unknown>;
    const ext = normaliseExtension(String(o.extension ?? ""));
    if (c.extension && ext !== normaliseExtension(c.extension)) return `a ${ext || "file without extension"} file`;
    if (c.mimeType && String(o.mime_type ?? "").toLowerCase() !== c.mimeType.toLowerCase())
      return `a file of type ${String(o.mime_type)}`;
    if (c.fileType && o.type !== c.fileType) return `a file of kind ${String(o.type)}`;
  }
  return undefined;
}

function describeExpectation(c: OutputCheck): string {
  switch (c.check) {
    case "exact":
      return shown(c.value);
    case "contains":
      return `to contain ${shown(c.value)}`;
    case "regex":
      return `to match /${c.pattern}/${c.flags ?? ""}`;
    case "json_schema":
      return "to match its JSON Schema";
    case "number":
      return `${c.value} ± ${c.tolerance}`;
    case "file_type":
      return `a file${c.extension ? ` ${normaliseExtension(c.extension)}` : ""}${c.mimeType ? ` (${c.mimeType})` : ""}${c.fileType ? ` of kind ${c.fileType}` : ""}`;
  }
}

/** Why `v` fails `c`, or undefined when it passes. */
function failure(c: OutputCheck, v: unknown): string | undefined {
  if (v === undefined || v === null) return shown(v === null ? null : undefined);
  switch (c.check) {
    case "exact":
      return isDeepStrictEqual(v, c.value) ? undefined : shown(v);
    case "contains":
      return asText(v).includes(c.value) ? undefined : shown(v);
    case "regex":
      return new RegExp(c.pattern, c.flags).test(asText(v)) ? undefined : shown(v);
    case "json_schema": {
      const validate = ajv.compile(c.schema);
      if (validate(v)) return undefined;
      const e = validate.errors?.[0];
      return `${shown(v)} (${e ? `${e.instancePath || "/"} ${e.message}` : "invalid"})`;
    }
    case "number": {
      const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
      return Number.isFinite(n) && Math.abs(n - c.value) <= c.tolerance ? undefined : shown(v);
    }
    case "file_type":
      return fileFailure(c, v);
  }
}

export function runCheck(c: OutputCheck, outputs: Record<string, unknown>): CheckResult {
  const got = failure(c, outputs[c.output]);
  if (got === undefined) return { output: c.output, check: c.check, pass: true };
  return { output: c.output, check: c.check, pass: false, expected: describeExpectation(c), got };
}
