import type { ArtifactVersion, AttemptRecord, NodeCommit, RunRecord, RunStore } from "./types.js";

/** In-process store for tests and one-off runs; same contract as the SQLite store. */
export class MemoryRunStore implements RunStore {
  private runs = new Map<string, RunRecord>();
  private commits = new Map<string, Map<string, NodeCommit>>();
  private attemptLog = new Map<string, AttemptRecord[]>();
  private artifactLog = new Map<string, ArtifactVersion[]>();
  private versions = new Map<string, number>();

  createRun(run: RunRecord): void {
    this.runs.set(run.id, structuredClone(run));
  }
  getRun(id: string): RunRecord | undefined {
    const r = this.runs.get(id);
    return r ? structuredClone(r) : undefined;
  }
  listRuns(limit = 50): RunRecord[] {
    return [...this.runs.values()].sort((a, b) => b.createdAt - a.createdAt).slice(0, limit);
  }
  updateRun(id: string, patch: Partial<Pick<RunRecord, "status" | "outputs" | "error">>): void {
    const r = this.runs.get(id);
    if (r) Object.assign(r, structuredClone(patch), { updatedAt: Date.now() });
  }
  commitNode(runId: string, commit: NodeCommit): NodeCommit {
    let m = this.commits.get(runId);
    if (!m) this.commits.set(runId, (m = new Map()));
    const prior = m.get(commit.key);
    if (prior) return structuredClone(prior);
    m.set(commit.key, structuredClone(commit));
    const log = this.artifactLog.get(runId) ?? [];
    for (const [name, value] of Object.entries(commit.outputs)) {
      const vkey = `${runId}\u0000${commit.nodeId}\u0000${name}`;
      const version = (this.versions.get(vkey) ?? 0) + 1;
      this.versions.set(vkey, version);
      log.push({ runId, nodeId: commit.nodeId, name, version, key: commit.key, value: structuredClone(value), createdAt: Date.now() });
    }
    this.artifactLog.set(runId, log);
    return commit;
  }
  committed(runId: string): Map<string, NodeCommit> {
    return new Map([...(this.commits.get(runId) ?? new Map())].map(([k, v]) => [k, structuredClone(v)]));
  }
  appendAttempt(rec: AttemptRecord): void {
    const list = this.attemptLog.get(rec.runId) ?? [];
    list.push(structuredClone(rec));
    this.attemptLog.set(rec.runId, list);
  }
  attempts(runId: string): AttemptRecord[] {
    return structuredClone(this.attemptLog.get(runId) ?? []);
  }
  artifacts(runId: string, nodeId?: string): ArtifactVersion[] {
    const all = this.artifactLog.get(runId) ?? [];
    return structuredClone(nodeId ? all.filter((a) => a.nodeId === nodeId) : all);
  }
}
