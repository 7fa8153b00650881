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

/** Which attempt of which node of a run (a node in an iteration body runs once per item, each its own attempt). */
export interface NodeAttempt {
  runId: string;
  key: string;
  nodeId: string;
  nodeType: string;
  title: string;
  attempt: number;
}

/** What an attempt produced: its outputs and the port it took, or its error. */
export interface AttemptResult {
  outputs?: Record<string, unknown>;
  port?: string;
  error?: { code: string; message: string };
  /** Model tokens the node used (LLM nodes). */
  usage?: { promptTokens: number; completionTokens: number; totalTokens: number };
}

export interface AttemptRecord extends NodeAttempt, AttemptResult {
  status: "succeeded" | "failed" | "exception" | "skipped" | "gate-rejected" | "paused";
  inputs: Record<string, unknown>;
  startedAt: number;
  endedAt: number;
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
  /** Which server process holds the run and until when (ms since the epoch, on the store's clock); see RunLeases. */
  lease?: { owner: string; expiresAt: number };
}

/** A lease to take: `ttlMs` from now on the store's clock (PostgreSQL's, so servers' clocks never disagree). */
export interface LeaseRequest {
  owner: string;
  ttlMs: number;
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
  /** With `lease`, the run is created held by that owner (one write: no moment where it runs unowned). */
  createRun(run: RunRecord, lease?: LeaseRequest): Promise<void>;
  getRun(id: string): Promise<RunRecord | undefined>;
  listRuns(o?: ListRunsOptions): Promise<RunRecord[]>;
  /**
   * Resolves to whether a run was written. A status other than `running` also drops the run's lease in the same
   * write: a lease lives only while its run runs, so no stopped process leaves one behind. With `owner`, only while that owner holds the run's lease, checked
   * in the same statement: a server that lost a run never overwrites the record of the one that took it over.
   */
  updateRun(
    id: string,
    patch: Partial<Pick<RunRecord, "status" | "outputs" | "error">>,
    owner?: string,
  ): Promise<boolean>;
  /**
   * Run leases (server-started runs; see src/server/leases.ts). A run is leased only while some server holds
   * it: runs with no lease (CLI, queue workers) are never claimed. Take one run for `owner` unless another
   * owner's lease on it is still valid; resolves to whether `owner` holds it now.
   */
  takeRun(id: string, lease: LeaseRequest): Promise<boolean>;
  /**
   * Claim up to `limit` running runs whose lease has expired, atomically: of concurrent claimants each run
   * goes to exactly one. Resolves to the ids claimed.
   */
  claimExpiredRuns(lease: LeaseRequest, limit: number): Promise<string[]>;
  /** Extend every lease `owner` holds, in one statement; resolves to the ids still held (a missing one was lost). */
  renewLeases(lease: LeaseRequest): Promise<string[]>;
  /** Drop `owner`'s lease on the run (its segment ended); another owner's lease is left alone. */
  releaseRun(id: string, owner: string): Promise<void>;
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
