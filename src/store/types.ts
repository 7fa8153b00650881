import type { Workflow } from "../ir/workflow.js";

export type RunStatus = "running" | "succeeded" | "partial-succeeded" | "failed" | "interrupted";
export type NodeStatus = "succeeded" | "exception" | "failed" | "skipped";

/** One node's committed result within a run; `key` encodes the frame path (iteration item, loop round). */
export interface NodeCommit {
  key: string;
  nodeId: string;
  status: NodeStatus;
  outputs: Record<string, unknown>;
  port?: string;
  /** Variables the node wrote (assigner), replayed on resume. */
  writes?: Array<{ selector: string[]; value: unknown }>;
}

export interface AttemptRecord {
  runId: string;
  key: string;
  nodeId: string;
  nodeType: string;
  title: string;
  attempt: number;
  status: "succeeded" | "failed" | "exception" | "skipped" | "gate-rejected";
  inputs: Record<string, unknown>;
  outputs?: Record<string, unknown>;
  port?: string;
  error?: { code: string; message: string };
  startedAt: number;
  endedAt: number;
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number };
  meta?: Record<string, unknown>;
}

export interface RunRecord {
  id: string;
  workflow: Workflow;
  inputs: Record<string, unknown>;
  status: RunStatus;
  outputs?: Record<string, unknown>;
  error?: { code: string; message: string; nodeId?: string };
  createdAt: number;
  updatedAt: number;
  appId?: string;
}

export interface ArtifactVersion {
  runId: string;
  nodeId: string;
  name: string;
  version: number;
  key: string;
  value: unknown;
  createdAt: number;
}

/**
 * Durable run state. `commitNode` must be durable when it returns: the engine starts successors
 * only afterwards, which is what makes resume-without-rerun possible.
 */
export interface RunStore {
  createRun(run: RunRecord): void;
  getRun(id: string): RunRecord | undefined;
  listRuns(limit?: number): RunRecord[];
  updateRun(id: string, patch: Partial<Pick<RunRecord, "status" | "outputs" | "error">>): void;
  /**
   * First commit wins: if this key is already committed (another worker got there first), nothing is
   * written and the existing commit is returned, so no node output is ever committed twice.
   */
  commitNode(runId: string, commit: NodeCommit): NodeCommit;
  committed(runId: string): Map<string, NodeCommit>;
  appendAttempt(rec: AttemptRecord): void;
  attempts(runId: string): AttemptRecord[];
  artifacts(runId: string, nodeId?: string): ArtifactVersion[];
}
