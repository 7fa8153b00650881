/**
 * One resolve case and its verdict: the types the resolve runner (resolve-suite.ts) and both rule sets
 * (Weft's in resolve-suite.ts, upstream's in resolve-upstream.ts) share.
 */
import { z } from "zod";
import { extensionOf } from "../tools/mime.js";
import { type FileCheckFailure, isFileValue, normaliseExtension } from "./metrics/resolve.js";

export const CaseSchema = z.object({
  name: z.string().optional(),
  inputs: z.record(z.string(), z.unknown()).default({}),
  reference: z.string().optional(),
});

export type ResolveCase = z.infer<typeof CaseSchema>;

export interface ResolveSuiteInstruction {
  task: string;
  round: number;
  queries: string[];
  /** Absolute path of the workflow file; undefined when the suite has none for this instruction. */
  workflow?: string;
  required_files?: Record<string, string>;
  cases: ResolveCase[];
}

export type ResolveStage =
  | "error"
  | "empty_outputs"
  | "file_check"
  | "files_only"
  | "judge"
  | "judge_skipped"
  | "judge_unknown";

export interface ResolveCaseResult {
  task: string;
  round: number;
  case: string;
  /** null when the verdict needed the judge and none was configured (judge_skipped) or none answered (judge_unknown). */
  pass: boolean | null;
  stage: ResolveStage;
  reason: string;
  /** stage "error": the typed error's code (e.g. `tool.not_configured`, `http.request_failed`, `resolve.timeout`). */
  errorCode?: string;
  /** stage "error": the node that failed, and what it needed (a tool's provider/name, a model). */
  errorNode?: { id: string; type: string; title: string };
  cause?: string;
  /** Output name → extension of each file output the check looked at (file_check and files_only). */
  fileExtensions?: Record<string, string[]>;
  outputs?: Record<string, unknown>;
  fileFailures?: FileCheckFailure[];
  durationMs?: number;
}

export type Verdict = Omit<ResolveCaseResult, "task" | "round" | "case">;

export interface JudgeRetry {
  attempts: number;
  delayMs: number;
}

/** The extension of every file (or file list) value among `names` of the outputs. */
export function extensionsOf(outputs: Record<string, unknown>, names: readonly string[]): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const n of names) {
    const v = outputs[n];
    const files = (Array.isArray(v) ? v : [v]).filter(isFileValue);
    if (files.length > 0) out[n] = files.map((f) => normaliseExtension(f.extension ?? extensionOf(f.filename ?? "")));
  }
  return out;
}
