import type { PendingForm } from "./services.js";

/** Every error Weft raises on purpose carries a stable code, so callers and tests match on it. */
export class WeftError extends Error {
  readonly code: string;
  readonly details: Record<string, unknown>;
  constructor(code: string, message: string, details: Record<string, unknown> = {}) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.details = details;
  }
  toJSON(): Record<string, unknown> {
    return { code: this.code, message: this.message, ...this.details };
  }
}

/** Input that cannot be read as a workflow at all (not YAML, not a mapping, wrong app mode...). */
export class ImportError extends WeftError {}

/** A workflow object that breaks the IR schema; `issues` name the path and reason of each problem. */
export class SchemaError extends WeftError {}

/** A node failed while running; carries the node id so traces and messages can name it. */
export class NodeExecutionError extends WeftError {
  constructor(
    code: string,
    message: string,
    readonly nodeId: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, { nodeId, ...details });
  }
}

/** A feature that exists in the vocabulary but cannot work here (no provider configured, ...). */
export class NotConfiguredError extends WeftError {}

/** One node execution waiting for a human: its frame key and the form it asked for. */
export interface PendingPause {
  key: string;
  nodeId: string;
  form: PendingForm;
}

/**
 * Not a failure: a node (or a container whose body holds one) waits for a human answer. The engine lets the
 * other running nodes finish and commit, then ends the run as `paused`; nothing is retried or error-handled.
 */
export class RunPause extends WeftError {
  constructor(readonly pending: PendingPause[]) {
    super("run.paused", `waiting for ${pending.map((p) => `"${p.form.nodeTitle || p.nodeId}"`).join(", ")}`, {
      nodes: pending.map((p) => p.key),
    });
  }
}
