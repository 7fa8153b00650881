import type Database from "better-sqlite3";
import type { ArtifactVersion, AttemptRecord, ListRunsOptions, NodeCommit, RunRecord, RunStore } from "../runs.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS runs (
  id TEXT PRIMARY KEY, app_id TEXT, workflow TEXT NOT NULL, inputs TEXT NOT NULL, status TEXT NOT NULL,
  outputs TEXT, error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS node_commits (
  run_id TEXT NOT NULL, key TEXT NOT NULL, node_id TEXT NOT NULL, status TEXT NOT NULL, outputs TEXT NOT NULL,
  port TEXT, writes TEXT, PRIMARY KEY (run_id, key));
CREATE TABLE IF NOT EXISTS attempts (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, key TEXT NOT NULL, node_id TEXT NOT NULL, record TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS attempts_run ON attempts(run_id, seq);
CREATE TABLE IF NOT EXISTS artifacts (
  run_id TEXT NOT NULL, node_id TEXT NOT NULL, name TEXT NOT NULL, version INTEGER NOT NULL, key TEXT NOT NULL,
  value TEXT, created_at INTEGER NOT NULL, PRIMARY KEY (run_id, node_id, name, version));
`;

const j = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
const p = <T>(s: string | null | undefined): T | undefined =>
  s === null || s === undefined ? undefined : (JSON.parse(s) as T);

/**
 * SQLite run store on a connection from `openSqlite`. With synchronous=FULL a commit is on disk when
 * `commitNode` resolves, so a `kill -9` after it never loses that node. better-sqlite3 is synchronous:
 * each method does its work before returning its (already settled) promise.
 */
export class SqliteRunStore implements RunStore {
  private stmts;

  constructor(readonly db: Database.Database) {
    this.db.exec(SCHEMA);
    this.stmts = {
      insertRun: this.db.prepare(
        "INSERT INTO runs (id, app_id, workflow, inputs, status, outputs, error, created_at, updated_at) VALUES (?,?,?,?,?,?,?,?,?)",
      ),
      getRun: this.db.prepare("SELECT * FROM runs WHERE id = ?"),
      listRuns: this.db.prepare("SELECT * FROM runs ORDER BY created_at DESC, rowid DESC LIMIT ?"),
      listAppRuns: this.db.prepare("SELECT * FROM runs WHERE app_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?"),
      commit: this.db.prepare(
        "INSERT OR IGNORE INTO node_commits (run_id, key, node_id, status, outputs, port, writes) VALUES (?,?,?,?,?,?,?)",
      ),
      commits: this.db.prepare("SELECT * FROM node_commits WHERE run_id = ?"),
      commitOne: this.db.prepare("SELECT * FROM node_commits WHERE run_id = ? AND key = ?"),
      attempt: this.db.prepare("INSERT INTO attempts (run_id, key, node_id, record) VALUES (?,?,?,?)"),
      attempts: this.db.prepare("SELECT record FROM attempts WHERE run_id = ? ORDER BY seq"),
      artifactVersion: this.db.prepare(
        "SELECT COALESCE(MAX(version), 0) AS v FROM artifacts WHERE run_id = ? AND node_id = ? AND name = ?",
      ),
      artifact: this.db.prepare(
        "INSERT INTO artifacts (run_id, node_id, name, version, key, value, created_at) VALUES (?,?,?,?,?,?,?)",
      ),
      artifacts: this.db.prepare("SELECT * FROM artifacts WHERE run_id = ? ORDER BY rowid"),
    };
  }

  private toRun(row: any): RunRecord {
    return {
      id: row.id,
      appId: row.app_id ?? undefined,
      workflow: JSON.parse(row.workflow),
      inputs: JSON.parse(row.inputs),
      status: row.status,
      outputs: p(row.outputs),
      error: p(row.error),
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    };
  }

  async createRun(run: RunRecord): Promise<void> {
    this.stmts.insertRun.run(
      run.id,
      run.appId ?? null,
      JSON.stringify(run.workflow),
      JSON.stringify(run.inputs),
      run.status,
      j(run.outputs),
      j(run.error),
      run.createdAt,
      run.updatedAt,
    );
  }
  async getRun(id: string): Promise<RunRecord | undefined> {
    const row = this.stmts.getRun.get(id);
    return row ? this.toRun(row) : undefined;
  }
  async listRuns(o: ListRunsOptions = {}): Promise<RunRecord[]> {
    const limit = o.limit ?? 50;
    const rows = o.appId === undefined ? this.stmts.listRuns.all(limit) : this.stmts.listAppRuns.all(o.appId, limit);
    return rows.map((r) => this.toRun(r));
  }
  async updateRun(id: string, patch: Partial<Pick<RunRecord, "status" | "outputs" | "error">>): Promise<void> {
    const fields: Array<[string, unknown]> = [];
    if (patch.status !== undefined) fields.push(["status", patch.status]);
    if ("outputs" in patch) fields.push(["outputs", j(patch.outputs)]);
    if ("error" in patch) fields.push(["error", j(patch.error)]);
    fields.push(["updated_at", Date.now()]);
    const sets = fields.map(([column]) => `${column} = ?`).join(", ");
    this.db.prepare(`UPDATE runs SET ${sets} WHERE id = ?`).run(...fields.map(([, v]) => v), id);
  }
  async commitNode(runId: string, c: NodeCommit): Promise<NodeCommit> {
    const now = Date.now();
    return this.db.transaction((): NodeCommit => {
      const inserted = this.stmts.commit.run(
        runId,
        c.key,
        c.nodeId,
        c.status,
        JSON.stringify(c.outputs),
        c.port ?? null,
        j(c.writes),
      );
      if (inserted.changes === 0) return this.toCommit(this.stmts.commitOne.get(runId, c.key));
      for (const [name, value] of Object.entries(c.outputs)) {
        const { v } = this.stmts.artifactVersion.get(runId, c.nodeId, name) as { v: number };
        this.stmts.artifact.run(runId, c.nodeId, name, v + 1, c.key, j(value), now);
      }
      return c;
    })();
  }
  private toCommit(row: any): NodeCommit {
    return {
      key: row.key,
      nodeId: row.node_id,
      status: row.status,
      outputs: JSON.parse(row.outputs),
      port: row.port ?? undefined,
      writes: p(row.writes),
    };
  }
  async committed(runId: string): Promise<Map<string, NodeCommit>> {
    const m = new Map<string, NodeCommit>();
    for (const row of this.stmts.commits.all(runId) as any[]) m.set(row.key, this.toCommit(row));
    return m;
  }
  async appendAttempt(rec: AttemptRecord): Promise<void> {
    this.stmts.attempt.run(rec.runId, rec.key, rec.nodeId, JSON.stringify(rec));
  }
  async attempts(runId: string): Promise<AttemptRecord[]> {
    return (this.stmts.attempts.all(runId) as Array<{ record: string }>).map((r) => JSON.parse(r.record));
  }
  async artifacts(runId: string, nodeId?: string): Promise<ArtifactVersion[]> {
    return (this.stmts.artifacts.all(runId) as any[])
      .filter((r) => !nodeId || r.node_id === nodeId)
      .map((r) => ({
        runId: r.run_id,
        nodeId: r.node_id,
        name: r.name,
        version: r.version,
        key: r.key,
        value: p(r.value),
        createdAt: r.created_at,
      }));
  }
}
