import type { Workflow } from "../ir/workflow.js";

/** `paused`: waiting for a human-input form; no process holds it, and it resumes from its commits once answered. */
export type RunStatus = "running" | "paused" | "succeeded" | "partial-succeeded" | "failed" | "interrupted";
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
  status: "succeeded" | "failed" | "exception" | "skipped" | "gate-rejected" | "paused";
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

export interface ListRunsOptions {
  /** Most recent first; default 50. */
  limit?: number;
  /** Only the runs of this server app. */
  appId?: string;
}

/**
 * The run store contract: durable run state, implemented in memory, on SQLite, and (issue 18) on
 * PostgreSQL. Every method is asynchronous so a networked database can implement it; a resolved promise
 * means the write is durable as far as that store promises durability.
 *
 * `commitNode` is the heart of it: the engine starts a node's successors only after its promise resolves,
 * which is what makes resume-without-rerun possible.
 */
export interface RunStore {
  createRun(run: RunRecord): Promise<void>;
  getRun(id: string): Promise<RunRecord | undefined>;
  listRuns(o?: ListRunsOptions): Promise<RunRecord[]>;
  updateRun(id: string, patch: Partial<Pick<RunRecord, "status" | "outputs" | "error">>): Promise<void>;
  /**
   * First commit wins: if this key is already committed (another worker got there first, even
   * concurrently), nothing is written and the existing commit is returned, so no node output is ever
   * committed twice. A fresh commit adds one artifact version per output.
   * Resolves to `commit` itself (the same object) when this call's commit is the one stored.
   * `attempt`, the trace record of the attempt that produced the commit, is appended in the same
   * transaction (whether or not the commit wins), so a node costs one durable write, not two.
   */
  commitNode(runId: string, commit: NodeCommit, attempt?: AttemptRecord): Promise<NodeCommit>;
  committed(runId: string): Promise<Map<string, NodeCommit>>;
  /** Attempts keep their append order per run. */
  appendAttempt(rec: AttemptRecord): Promise<void>;
  attempts(runId: string): Promise<AttemptRecord[]>;
  /** Versions in commit order; `version` counts from 1 per (run, node, output). */
  artifacts(runId: string, nodeId?: string): Promise<ArtifactVersion[]>;
}
