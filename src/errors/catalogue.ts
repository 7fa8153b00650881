import { ANALYSIS_ENTRIES, type AnalysisEntry } from "./analysis.js";
import { ENTRIES, type EntryRow, type ErrorKind } from "./entries.js";
import { AREA_HINTS } from "./hints.js";

/**
 * The error catalogue: every code Weft raises or reports, spelled `area.reason`, with where it surfaces.
 * test/errors/catalogue.test.ts scans src/ and fails on a code missing here or an entry nothing raises;
 * docs/errors.md and `weft errors` are generated from it.
 */

/** CLI exit statuses: 0 ok, 1 the thing checked is invalid / the run failed, 2 usage or configuration problem. */
export type { ErrorKind };

export const EXIT = { ok: 0, invalid: 1, usage: 2 } as const;

/**
 * The API's statuses for errors that are not ApiErrors (an ApiError names its own status where it is thrown):
 * any other WeftError is the caller's bad input; the server's own database failing, or anything untyped, is ours.
 */
export const HTTP = { invalidInput: 422, serverFault: 500 } as const;

export interface ErrorEntry {
  code: string;
  area: string;
  kind: ErrorKind;
  /** HTTP statuses the API answers it with; empty when it never reaches the API on its own. */
  http: readonly number[];
  /** CLI exit statuses it ends a command with; empty when no command ends on it. */
  exit: readonly number[];
  /** The message as written where it is raised; `{…}` marks a value filled in. */
  message: string;
  hint: string;
  /** Analyser diagnostics: the default severity. */
  severity?: "error" | "warning";
}

/** The area is the part before the first dot; Dify's codes have none and are in the area `dify`. */
export function errorArea(code: string): string {
  const dot = code.indexOf(".");
  return dot < 0 ? "dify" : code.slice(0, dot);
}

function entry(code: string, row: EntryRow): ErrorEntry {
  const [kind, http, exit, message, hint] = row;
  const area = errorArea(code);
  return { code, area, kind, http, exit, message, hint: hint ?? AREA_HINTS[area] ?? "" };
}

function build(): ReadonlyMap<string, ErrorEntry> {
  const out = new Map<string, ErrorEntry>();
  for (const [code, row] of Object.entries(ENTRIES)) out.set(code, entry(code, row));
  for (const [code, a] of Object.entries(ANALYSIS_ENTRIES as Record<string, AnalysisEntry>)) {
    // A code the analyser reports may also be thrown elsewhere (config.invalid by the CLI's config reader).
    const thrown = out.get(code);
    const hint = a.hint ?? AREA_HINTS[errorArea(code)] ?? "";
    out.set(code, {
      code,
      area: errorArea(code),
      kind: "report",
      http: thrown?.http ?? [],
      exit: thrown?.exit ?? [],
      message: a.summary,
      hint,
      severity: a.severity,
    });
  }
  return new Map([...out].sort(([a], [b]) => a.localeCompare(b)));
}

export const ERROR_CATALOGUE: ReadonlyMap<string, ErrorEntry> = build();

/** A code's entry; a pattern entry (`usage.*`) matches the codes it stands for, one `*` per segment part. */
export function lookupError(code: string): ErrorEntry | undefined {
  const exact = ERROR_CATALOGUE.get(code);
  if (exact) return exact;
  for (const e of ERROR_CATALOGUE.values()) if (e.code.includes("*") && patternOf(e.code).test(code)) return e;
  return undefined;
}

function patternOf(code: string): RegExp {
  return new RegExp(
    `^${code
      .split("*")
      .map((p) => p.replace(/[.^$+?()[\]{}|\\]/g, "\\$&"))
      .join("[a-z0-9_.]+")}$`,
  );
}

/** `area.reason`: lower-case words joined by `_`, one dot after the area; `*` stands for a computed part. */
export const CODE_SPELLING = /^[a-z][a-z0-9_]*\.[a-z0-9_*]+(\.[a-z0-9_*]+)*$/;
