import { WeftError } from "../ir/errors.js";
import type { AttemptRecord, LeaseRequest, ListRunsOptions, NodeCommit, RunRecord, RunStore } from "../store/runs.js";

/** Who holds the leases: the owner id and the lease it takes. */
export interface LeaseHolder {
  readonly owner: string;
  readonly request: LeaseRequest;
}

/**
 * The run store as the engine sees it inside a server: a run is created already leased to this server (no
 * moment where it runs unowned), and its record is written only while this server still holds its lease, so a
 * server that lost a run to a peer fails its own copy (`run.lease_lost`) instead of overwriting the peer's
 * record. Commits need no fence: they are first-wins, whichever copy makes them.
 */
export class LeasedRunStore implements RunStore {
  constructor(
    private readonly runs: RunStore,
    private readonly holder: LeaseHolder,
  ) {}

  createRun(run: RunRecord): Promise<void> {
    return this.runs.createRun(run, this.holder.request);
  }

  async updateRun(id: string, patch: Partial<Pick<RunRecord, "status" | "outputs" | "error">>): Promise<boolean> {
    if (await this.runs.updateRun(id, patch, this.holder.owner)) return true;
    throw new WeftError(
      "run.lease_lost",
      `run ${id} is no longer held by this server (${this.holder.owner}): another server took it over, so this copy stops without writing its record`,
      { runId: id },
    );
  }

  getRun(id: string): Promise<RunRecord | undefined> {
    return this.runs.getRun(id);
  }
  listRuns(o?: ListRunsOptions): Promise<RunRecord[]> {
    return this.runs.listRuns(o);
  }
  takeRun(id: string, lease: LeaseRequest): Promise<boolean> {
    return this.runs.takeRun(id, lease);
  }
  claimExpiredRuns(lease: LeaseRequest, limit: number): Promise<string[]> {
    return this.runs.claimExpiredRuns(lease, limit);
  }
  renewLeases(lease: LeaseRequest): Promise<string[]> {
    return this.runs.renewLeases(lease);
  }
  releaseRun(id: string, owner: string): Promise<void> {
    return this.runs.releaseRun(id, owner);
  }
  commitNode(runId: string, commit: NodeCommit, attempt?: AttemptRecord): Promise<NodeCommit> {
    return this.runs.commitNode(runId, commit, attempt);
  }
  committed(runId: string): Promise<Map<string, NodeCommit>> {
    return this.runs.committed(runId);
  }
  appendAttempt(rec: AttemptRecord): Promise<void> {
    return this.runs.appendAttempt(rec);
  }
  attempts(runId: string): Promise<AttemptRecord[]> {
    return this.runs.attempts(runId);
  }
  artifacts(runId: string, nodeId?: string) {
    return this.runs.artifacts(runId, nodeId);
  }
}
