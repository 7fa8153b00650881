import type Database from "better-sqlite3";
import type {
  ArtifactVersion,
  AttemptRecord,
  LeaseRequest,
  ListRunsOptions,
  NodeCommit,
  RunRecord,
  RunStore,
} from "../runs.js";
import { GroupCommit } from "./group-commit.js";

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

/**
 * Run leases (issue 28), added to databases made before them. Partial indexes: only runs a server holds have
 * a lease, so renewing and sweeping read a handful of rows, not the whole history.
 */
function addLeaseColumns(db: Database.Database): void {
  const columns = () =>
    new Set((db.prepare("PRAGMA table_info(runs)").all() as Array<{ name: string }>).map((c) => c.name));
  // Checked before writing, so a read-only file that has them opens as before.
  if (columns().has("lease_expires")) return;
  // Immediate: two processes opening an old file at once take turns instead of both adding the columns.
  db.exec("BEGIN IMMEDIATE");
  try {
    if (!columns().has("lease_expires"))
      db.exec(`
ALTER TABLE runs ADD COLUMN lease_owner TEXT;
ALTER TABLE runs ADD COLUMN lease_expires INTEGER;
CREATE INDEX runs_lease_expires ON runs(lease_expires) WHERE lease_expires IS NOT NULL;
CREATE INDEX runs_lease_owner ON runs(lease_owner) WHERE lease_owner IS NOT NULL;`);
    db.exec("COMMIT");
  } catch (e) {
    if (db.inTransaction) db.exec("ROLLBACK");
    throw e;
  }
}

const j = (v: unknown) => (v === undefined ? null : JSON.stringify(v));
const p = <T>(s: string | null | undefined): T | undefined =>
  s === null || s === undefined ? undefined : (JSON.parse(s) as T);

/**
 * SQLite run store on a connection from `openSqlite`. Writes go through the connection's group commit: with
 * synchronous=FULL a commit is on disk when `commitNode` resolves, so a `kill -9` or a power loss after it
 * never loses that node, and the commits of concurrent runs share one sync made off the event loop. Reads are
 * synchronous (better-sqlite3) and see every write that resolved.
 */
export class SqliteRunStore implements RunStore {
  private stmts;

  constructor(
    readonly db: Database.Database,
    private readonly group: GroupCommit = new GroupCommit(db),
  ) {
    this.db.exec(SCHEMA);
    addLeaseColumns(this.db);
    this.stmts = {
      insertRun: this.db.prepare(
        "INSERT INTO runs (id, app_id, workflow, inputs, status, outputs, error, created_at, updated_at, lease_owner, lease_expires) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
      ),
      takeRun: this.db.prepare(
        "UPDATE runs SET lease_owner = ?, lease_expires = ? WHERE id = ? AND (lease_owner IS NULL OR lease_owner = ? OR lease_expires < ?)",
      ),
      // One statement under SQLite's write lock: a concurrent claimant sees the new expiry and skips the row.
      claimExpired: this.db.prepare(
        `UPDATE runs SET lease_owner = ?, lease_expires = ? WHERE id IN (
           SELECT id FROM runs WHERE status = 'running' AND lease_expires < ? ORDER BY lease_expires LIMIT ?)
         RETURNING id`,
      ),
      renew: this.db.prepare("UPDATE runs SET lease_expires = ? WHERE lease_owner = ? RETURNING id"),
      release: this.db.prepare(
        "UPDATE runs SET lease_owner = NULL, lease_expires = NULL WHERE id = ? AND lease_owner = ?",
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
      ...(row.lease_owner !== null && { lease: { owner: row.lease_owner, expiresAt: row.lease_expires } }),
    };
  }

  async createRun(run: RunRecord, lease?: LeaseRequest): Promise<void> {
    const leaseExpires = lease ? Date.now() + lease.ttlMs : null;
    await this.group.write(() =>
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
        lease?.owner ?? null,
        leaseExpires,
      ),
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
  async updateRun(
    id: string,
    patch: Partial<Pick<RunRecord, "status" | "outputs" | "error">>,
    owner?: string,
  ): Promise<boolean> {
    const fields: Array<[string, unknown]> = [];
    if (patch.status !== undefined) fields.push(["status", patch.status]);
    if (patch.status !== undefined && patch.status !== "running")
      fields.push(["lease_owner", null], ["lease_expires", null]);
    if ("outputs" in patch) fields.push(["outputs", j(patch.outputs)]);
    if ("error" in patch) fields.push(["error", j(patch.error)]);
    fields.push(["updated_at", Date.now()]);
    const sets = fields.map(([column]) => `${column} = ?`).join(", ");
    const where = owner === undefined ? "id = ?" : "id = ? AND lease_owner = ?";
    const args = owner === undefined ? [id] : [id, owner];
    return this.group.write(
      () =>
        this.db.prepare(`UPDATE runs SET ${sets} WHERE ${where}`).run(...fields.map(([, v]) => v), ...args).changes > 0,
    );
  }
  async takeRun(id: string, lease: LeaseRequest): Promise<boolean> {
    const now = Date.now();
    return this.group.write(
      () => this.stmts.takeRun.run(lease.owner, now + lease.ttlMs, id, lease.owner, now).changes > 0,
    );
  }
  async claimExpiredRuns(lease: LeaseRequest, limit: number): Promise<string[]> {
    const now = Date.now();
    const rows = (await this.group.write(() =>
      this.stmts.claimExpired.all(lease.owner, now + lease.ttlMs, now, limit),
    )) as Array<{
      id: string;
    }>;
    return rows.map((r) => r.id);
  }
  async renewLeases(lease: LeaseRequest): Promise<string[]> {
    const expires = Date.now() + lease.ttlMs;
    const rows = (await this.group.write(() => this.stmts.renew.all(expires, lease.owner))) as Array<{ id: string }>;
    return rows.map((r) => r.id);
  }
  async releaseRun(id: string, owner: string): Promise<void> {
    await this.group.write(() => this.stmts.release.run(id, owner));
  }
  async commitNode(runId: string, c: NodeCommit, attempt?: AttemptRecord): Promise<NodeCommit> {
    const now = Date.now();
    return this.group.write((): NodeCommit => {
      if (attempt) this.insertAttempt(attempt);
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
    });
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
    await this.group.write(() => this.insertAttempt(rec));
  }
  private insertAttempt(rec: AttemptRecord): void {
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
