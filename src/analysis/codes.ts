import { ANALYSIS_ENTRIES } from "../errors/analysis.js";
import type { Diagnostic, Severity } from "../ir/diagnostics.js";

/** The analyser's own codes, kept in the error catalogue (src/errors/analysis.ts) with every other code. */
export const ANALYSIS_CODES = ANALYSIS_ENTRIES satisfies Record<string, { severity: Severity; summary: string }>;

export type AnalysisCode = keyof typeof ANALYSIS_CODES;

/** `mode.<type>_in_<workflow|chat>`: a node type whose def.modes excludes the app mode. */
export function modeCode(type: string, mode: "workflow" | "advanced-chat"): string {
  return `mode.${type.replace(/[^a-zA-Z0-9]+/g, "_")}_in_${mode === "advanced-chat" ? "chat" : "workflow"}`;
}

export type SeverityOverrides = Partial<Record<string, Severity | "off">>;

/** Collects diagnostics, applying the caller's severity overrides ("off" drops the code). */
export class DiagnosticSink {
  readonly list: Diagnostic[] = [];
  constructor(private readonly overrides: SeverityOverrides = {}) {}

  add(
    code: string,
    message: string,
    where: { nodeId?: string; field?: string; edgeId?: string } = {},
    severity?: Severity,
  ): void {
    const base = severity ?? (ANALYSIS_CODES as Record<string, { severity: Severity }>)[code]?.severity ?? "error";
    this.push({ code, severity: base, message, ...definedOnly(where) });
  }

  push(d: Diagnostic): void {
    const o = this.overrides[d.code];
    if (o === "off") return;
    this.list.push(o ? { ...d, severity: o } : d);
  }
}

function definedOnly<T extends object>(o: T): Partial<T> {
  const out: Partial<T> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) (out as Record<string, unknown>)[k] = v;
  return out;
}
