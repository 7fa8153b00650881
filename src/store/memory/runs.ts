import { cloneRecord } from "../../util/clone.js";
import type {
  ArtifactVersion,
  AttemptRecord,
  LeaseRequest,
  ListRunsOptions,
  NodeCommit,
  RunRecord,
  RunStore,
} from "../runs.js";

export interface MemoryRunStoreOptions {
  /** Keep a run's workflow as given instead of a copy (reads still copy); see the constructor. */
  workflowsByReference?: boolean;
  /**
   * The engine's own store of one run, which nobody else holds (`runWorkflow` without a store): the trace is
   * handed back without a second copy of every record (they were copied when stored, and the run is over when
   * it is read), and no artifact log is kept, since nothing could ask for it. Implies workflowsByReference.
   */
  engineOwned?: boolean;
}

const leaseOf = (l: LeaseRequest) => ({ owner: l.owner, expiresAt: Date.now() + l.ttlMs });

/** In-process run store for tests and one-off runs (nothing survives the process); same contract as the SQLite store. */
export class MemoryRunStore implements RunStore {
  /**
   * `workflowsByReference`: keep a run's workflow as given instead of a copy (reads still copy). For the
   * engine's own store of one run, whose workflow — IR, not changed once built — nobody else holds a record
   * of; copying it was a large share of a small run's cost.
   */
  constructor(private readonly opts: MemoryRunStoreOptions = {}) {}

  private runs = new Map<string, RunRecord>();
  private commits = new Map<string, Map<string, NodeCommit>>();
  private attemptLog = new Map<string, AttemptRecord[]>();
  private artifactLog = new Map<string, ArtifactVersion[]>();
  /** Artifact versions per run, node and output name. */
  private versions = new Map<string, Map<string, Map<string, number>>>();

  async createRun(run: RunRecord, lease?: LeaseRequest): Promise<void> {
    const r =
      this.opts.workflowsByReference || this.opts.engineOwned
        ? { ...cloneRecord({ ...run, workflow: undefined }), workflow: run.workflow }
        : cloneRecord(run);
    if (lease) r.lease = leaseOf(lease);
    else delete r.lease;
    this.runs.set(run.id, r);
  }
  /** The run log's retention (memory only: the SQL stores delete in their own run log). */
  forget(ids: string[]): void {
    for (const id of ids) {
      this.runs.delete(id);
      this.commits.delete(id);
      this.attemptLog.delete(id);
      this.artifactLog.delete(id);
      this.versions.delete(id);
    }
  }
  async getRun(id: string): Promise<RunRecord | undefined> {
    const r = this.runs.get(id);
    return r ? cloneRecord(r) : undefined;
  }
  async listRuns(o: ListRunsOptions = {}): Promise<RunRecord[]> {
    return cloneRecord(
      [...this.runs.values()]
        .reverse()
        .filter((r) => o.appId === undefined || r.appId === o.appId)
        .sort((a, b) => b.createdAt - a.createdAt)
        .slice(0, o.limit ?? 50),
    );
  }
  async updateRun(
    id: string,
    patch: Partial<Pick<RunRecord, "status" | "outputs" | "error">>,
    owner?: string,
  ): Promise<boolean> {
    const r = this.runs.get(id);
    if (!r || (owner !== undefined && r.lease?.owner !== owner)) return false;
    Object.assign(r, cloneRecord(patch), { updatedAt: Date.now() });
    if (patch.status !== undefined && patch.status !== "running") delete r.lease;
    return true;
  }
  async takeRun(id: string, lease: LeaseRequest): Promise<boolean> {
    const r = this.runs.get(id);
    if (!r) return false;
    if (r.lease && r.lease.owner !== lease.owner && r.lease.expiresAt >= Date.now()) return false;
    r.lease = leaseOf(lease);
    return true;
  }
  async claimExpiredRuns(lease: LeaseRequest, limit: number): Promise<string[]> {
    const now = Date.now();
    const expired = [...this.runs.values()]
      .filter((r) => r.status === "running" && r.lease && r.lease.expiresAt < now)
      .sort((a, b) => a.lease!.expiresAt - b.lease!.expiresAt)
      .slice(0, limit);
    for (const r of expired) r.lease = leaseOf(lease);
    return expired.map((r) => r.id);
  }
  async renewLeases(lease: LeaseRequest): Promise<string[]> {
    const held = [...this.runs.values()].filter((r) => r.lease?.owner === lease.owner);
    for (const r of held) r.lease = leaseOf(lease);
    return held.map((r) => r.id);
  }
  async releaseRun(id: string, owner: string): Promise<void> {
    const r = this.runs.get(id);
    if (r?.lease?.owner === owner) delete r.lease;
  }
  async commitNode(runId: string, commit: NodeCommit, attempt?: AttemptRecord): Promise<NodeCommit> {
    // The stored commit's outputs are also the artifacts' values: nothing here changes them, and reads copy.
    if (attempt) this.pushAttempt(attempt);
    const m = this.commits.get(runId) ?? new Map<string, NodeCommit>();
    this.commits.set(runId, m);
    const prior = m.get(commit.key);
    if (prior) return cloneRecord(prior);
    const stored = cloneRecord(commit);
    m.set(commit.key, stored);
    if (this.opts.engineOwned) return commit;
    const log = this.artifactLog.get(runId) ?? [];
    const counts = this.versionsOf(runId, commit.nodeId);
    for (const [name, value] of Object.entries(stored.outputs)) {
      const version = (counts.get(name) ?? 0) + 1;
      counts.set(name, version);
      log.push({
        runId,
        nodeId: commit.nodeId,
        name,
        version,
        key: commit.key,
        value,
        createdAt: Date.now(),
      });
    }
    this.artifactLog.set(runId, log);
    return commit;
  }
  private versionsOf(runId: string, nodeId: string): Map<string, number> {
    let byNode = this.versions.get(runId);
    if (!byNode) {
      byNode = new Map();
      this.versions.set(runId, byNode);
    }
    let counts = byNode.get(nodeId);
    if (!counts) {
      counts = new Map();
      byNode.set(nodeId, counts);
    }
    return counts;
  }
  async committed(runId: string): Promise<Map<string, NodeCommit>> {
    return new Map([...(this.commits.get(runId) ?? new Map())].map(([k, v]) => [k, cloneRecord(v)]));
  }
  async appendAttempt(rec: AttemptRecord): Promise<void> {
    this.pushAttempt(rec);
  }
  private pushAttempt(rec: AttemptRecord): void {
    this.attemptList(rec.runId).push(cloneRecord(rec));
  }
  private attemptList(runId: string): AttemptRecord[] {
    let list = this.attemptLog.get(runId);
    if (!list) {
      list = [];
      this.attemptLog.set(runId, list);
    }
    return list;
  }
  async attempts(runId: string): Promise<AttemptRecord[]> {
    const list = this.attemptLog.get(runId) ?? [];
    return this.opts.engineOwned ? list.slice() : cloneRecord(list);
  }
  async artifacts(runId: string, nodeId?: string): Promise<ArtifactVersion[]> {
    const all = this.artifactLog.get(runId) ?? [];
    return cloneRecord(nodeId ? all.filter((a) => a.nodeId === nodeId) : all);
  }
}
