import { WeftError } from "../../ir/errors.js";

/** One thing in a workflow that Coze cannot express exactly. */
export interface CozeProblem {
  nodeId: string;
  nodeType: string;
  title: string;
  reason: string;
}

/**
 * The workflow cannot be written as a Coze canvas without changing what it does. `code` is
 * `coze.unsupported_node` and `problems` names every offending node with the reason, so one run
 * reports them all; `coze.invalid_canvas` means the exporter produced a canvas its own schema rejects.
 */
export class CozeExportError extends WeftError {
  readonly problems: CozeProblem[];
  constructor(code: string, message: string, problems: CozeProblem[] = [], details: Record<string, unknown> = {}) {
    super(code, message, { problems, ...details });
    this.problems = problems;
  }
}

/** Thrown inside one node's conversion; the exporter collects these into a CozeExportError. */
export class Unsupported extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

export function unsupported(reason: string): never {
  throw new Unsupported(reason);
}
