import type { NodeResult } from "../ir/registry.js";
import type { Workflow } from "../ir/workflow.js";
import type { NodeAttempt } from "../store/runs.js";

/** What an observer reads of a run's result. */
export interface RunOutcome {
  status: string;
  error?: { code: string; message: string };
}

/** What a run is, for whoever observes it (tracing, metrics). */
export interface RunObservation {
  runId: string;
  appId?: string;
  workflowName: string;
  /** The workflow run (read only): which model each node calls, for token costs. */
  workflow: Workflow;
  resumed: boolean;
  /** Clear texts that must never leave the process (an observer redacts them from what it records). */
  secrets: string[];
}

/** One attempt of one node, for whoever observes it. */
export type AttemptObservation = NodeAttempt;

/**
 * The engine's only observability seam: it wraps the run and each node attempt in these calls, so an
 * observer can open a span around them and everything the node does inside (model, tool, HTTP calls) runs
 * within it. The engine knows nothing of OpenTelemetry; with no observer it calls nothing at all.
 */
export interface RunObserver {
  run<T extends RunOutcome>(info: RunObservation, body: () => Promise<T>): Promise<T>;
  attempt(info: AttemptObservation, body: () => Promise<NodeResult>): Promise<NodeResult>;
}
