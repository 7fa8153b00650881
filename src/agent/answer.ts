import { analyse } from "../analysis/index.js";
import { compactToWorkflow, type CompactOptions } from "../dsl/compact/to-ir.js";
import type { Diagnostic } from "../ir/diagnostics.js";
import type { Workflow } from "../ir/workflow.js";
import { parseAnswer, type ParsedAnswer } from "./repair/index.js";

export interface AnswerReading {
  parsed: ParsedAnswer;
  /** The converted workflow, when the answer could be converted at all. */
  workflow?: Workflow;
  /** Errors to feed back to the model: parse, conversion, then analysis (only of a clean conversion). */
  problems: Diagnostic[];
}

const errors = (ds: Diagnostic[]) => ds.filter((d) => d.severity === "error");

/**
 * Everything the generation loop does with one model answer before any test run: read (with the
 * auto-repairs), convert, analyse. Model output is hostile input: this must end in typed problems,
 * never throw — the fuzz test and bench/fuzz.ts hold it to that.
 */
export function readAnswer(text: string, compact: CompactOptions = {}): AnswerReading {
  const parsed = parseAnswer(text, { repair: true });
  const problems = errors(parsed.diagnostics);
  if (problems.length > 0 || parsed.json === undefined) return { parsed, problems };
  const conv = compactToWorkflow(parsed.json, compact);
  problems.push(...errors(conv.diagnostics));
  const workflow = conv.workflow;
  if (workflow && problems.length === 0) problems.push(...errors(analyse(workflow).diagnostics));
  return { parsed, workflow, problems };
}
