import type { PendingForm } from "../ir/services.js";
import type { AttemptResult, NodeAttempt, RunStatus } from "./runs.js";

/** What a run reports as it goes: the engine emits these, the run log keeps them, the server streams them. */
export type RunEvent =
  | { type: "run_started"; runId: string; resumed: boolean }
  | ({ type: "node_started" } & NodeAttempt)
  | ({
      type: "node_finished";
      runId: string;
      key: string;
      nodeId: string;
      nodeType: string;
      status: "succeeded" | "exception" | "failed";
      durationMs: number;
      cached: boolean;
    } & AttemptResult)
  | { type: "node_skipped"; runId: string; key: string; nodeId: string }
  | { type: "node_retry"; runId: string; key: string; nodeId: string; attempt: number; reason: string }
  /** A node waits for a human answer: the run will end paused once the other running nodes finish. */
  | { type: "node_paused"; runId: string; key: string; nodeId: string; nodeType: string; form: PendingForm }
  | { type: "text_chunk"; runId: string; nodeId: string; text: string; selector?: string[] }
  | {
      type: "run_finished";
      runId: string;
      status: RunStatus;
      outputs?: Record<string, unknown>;
      error?: { code: string; message: string; nodeId?: string };
      /** For a paused run: the node executions waiting, with their forms. */
      paused?: Array<{ key: string; nodeId: string; formId: string }>;
    };
