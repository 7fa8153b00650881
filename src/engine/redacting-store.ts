import type { AttemptRecord, LeaseRequest, ListRunsOptions, NodeCommit, RunRecord, RunStore } from "../store/runs.js";
import type { Redactor } from "./redact.js";

/**
 * The run store as a run with secrets writes through it: inputs, outputs, errors, commits and attempts are
 * stored with every secret's clear text replaced. The run itself keeps the real values in memory, so nodes
 * downstream in the same segment still get them; a resumed run reads the redacted commits (its env is
 * seeded with the real values again).
 */
export class RedactingRunStore implements RunStore {
  constructor(
    private readonly inner: RunStore,
    private readonly redact: Redactor,
  ) {}

  createRun(run: RunRecord, lease?: LeaseRequest): Promise<void> {
    return this.inner.createRun(this.redact(run), lease);
  }
  getRun(id: string): Promise<RunRecord | undefined> {
    return this.inner.getRun(id);
  }
  listRuns(o?: ListRunsOptions): Promise<RunRecord[]> {
    return this.inner.listRuns(o);
  }
  updateRun(id: string, patch: Partial<Pick<RunRecord, "status" | "outputs" | "error">>, owner?: string) {
    return this.inner.updateRun(id, this.redact(patch), owner);
  }
  takeRun(id: string, lease: LeaseRequest): Promise<boolean> {
    return this.inner.takeRun(id, lease);
  }
  claimExpiredRuns(lease: LeaseRequest, limit: number): Promise<string[]> {
    return this.inner.claimExpiredRuns(lease, limit);
  }
  renewLeases(lease: LeaseRequest): Promise<string[]> {
    return this.inner.renewLeases(lease);
  }
  releaseRun(id: string, owner: string): Promise<void> {
    return this.inner.releaseRun(id, owner);
  }
  async commitNode(runId: string, commit: NodeCommit, attempt?: AttemptRecord): Promise<NodeCommit> {
    const stored = this.redact(commit);
    const won = await this.inner.commitNode(runId, stored, attempt && this.redact(attempt));
    // The engine tells its own commit by identity: hand back the one it passed when the redacted copy won.
    return won === stored ? commit : won;
  }
  committed(runId: string): Promise<Map<string, NodeCommit>> {
    return this.inner.committed(runId);
  }
  appendAttempt(rec: AttemptRecord): Promise<void> {
    return this.inner.appendAttempt(this.redact(rec));
  }
  attempts(runId: string) {
    return this.inner.attempts(runId);
  }
  artifacts(runId: string, nodeId?: string) {
    return this.inner.artifacts(runId, nodeId);
  }
}
