import type { RunLogEntry, RunLogStatus } from "./runlog.js";
import type { RunRecord } from "./runs.js";

/** A stored run's status as the log filters it: a failed run whose error is a cancellation is `cancelled`. */
export function logStatus(r: Pick<RunRecord, "status" | "error">): RunLogStatus {
  return r.status === "failed" && r.error?.code === "run.cancelled" ? "cancelled" : r.status;
}

/** The stored statuses (and whether cancelled is meant) a status filter selects, for the SQL stores. */
export function statusClauses(wanted: RunLogStatus[]): { plain: string[]; cancelled: boolean; failed: boolean } {
  return {
    plain: wanted.filter((s) => s !== "cancelled" && s !== "failed"),
    cancelled: wanted.includes("cancelled"),
    failed: wanted.includes("failed"),
  };
}

export const entryOf = (
  r: RunRecord,
  tag?: Pick<RunLogEntry, "source" | "version" | "draft" | "triggerId">,
): RunLogEntry => {
  const { workflow, ...rest } = r;
  return { ...rest, workflowName: workflow.name, ...tag };
};
