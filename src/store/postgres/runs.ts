import type {
  ArtifactVersion,
  AttemptRecord,
  LeaseRequest,
  ListRunsOptions,
  NodeCommit,
  RunRecord,
  RunStore,
} from "../runs.js";
import { CommitBatcher, type QueuedCommit } from "./commit-batch.js";
import type { PgDatabase } from "./database.js";
import { fromJson, json, toJson } from "./json.js";

interface RunRow {
  id: string;
  app_id: string | null;
  workflow: string;
  inputs: string;
  status: RunRecord["status"];
  outputs: string | null;
  error: string | null;
  created_at: number;
  updated_at: number;
  lease_owner: string | null;
  lease_expires: number | null;
}

interface CommitRow {
  key: string;
  node_id: string;
  status: NodeCommit["status"];
  outputs: string;
  port: string | null;
  writes: string | null;
}

const toRun = (r: RunRow): RunRecord => ({
  id: r.id,
  appId: r.app_id ?? undefined,
  workflow: json(r.workflow),
  inputs: json(r.inputs),
  status: r.status,
  outputs: fromJson(r.outputs),
  error: fromJson(r.error),
  createdAt: r.created_at,
  updatedAt: r.updated_at,
  ...(r.lease_owner !== null && { lease: { owner: r.lease_owner, expiresAt: r.lease_expires! } }),
});

const toCommit = (r: CommitRow): NodeCommit => ({
  key: r.key,
  nodeId: r.node_id,
  status: r.status,
  outputs: json(r.outputs),
  port: r.port ?? undefined,
  writes: fromJson(r.writes),
});

const RUN_COLUMNS = "id, app_id, workflow, inputs, status, outputs, error, created_at, updated_at";
const READ_COLUMNS = `${RUN_COLUMNS}, lease_owner, lease_expires`;

/**
 * Leases run on the database's clock (ms since the epoch), not each server's: servers on machines whose clocks
 * disagree still agree on whether a lease has expired. Stable within a statement.
 */
const NOW_MS = "(extract(epoch from statement_timestamp()) * 1000)::bigint";

/**
 * Under READ COMMITTED an UPDATE re-checks its WHERE on the newest row version after waiting for a concurrent
 * writer, and SKIP LOCKED passes over rows another claimant is taking: each expired run goes to one claimant.
 */
const CLAIM_SQL = `
UPDATE runs SET lease_owner = $1, lease_expires = ${NOW_MS} + $2
WHERE id IN (
  SELECT id FROM runs WHERE status = 'running' AND lease_expires < ${NOW_MS}
  ORDER BY lease_expires LIMIT $3 FOR UPDATE SKIP LOCKED)
RETURNING id`;

/**
 * A node commit in one statement (one round trip, atomic): the commit row goes in unless its key is taken
 * (the primary key decides, so concurrent committers on any connection get exactly one winner); only then
 * does each output's version counter move, by an upsert that PostgreSQL serialises per (run, node, output),
 * and the artifact rows are written with the versions it returned.
 */
const COMMIT_SQL = `
WITH c AS (
  INSERT INTO node_commits (run_id, key, node_id, status, outputs, port, writes, created_at)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
  ON CONFLICT (run_id, key) DO NOTHING
  RETURNING seq),
o AS (SELECT name, value, ord FROM unnest($9::text[], $10::json[]) WITH ORDINALITY AS t(name, value, ord)),
h AS (
  INSERT INTO artifact_heads AS head (run_id, node_id, name, version)
  SELECT $1, $3, o.name, 1 FROM o, c
  ON CONFLICT (run_id, node_id, name) DO UPDATE SET version = head.version + 1
  RETURNING name, version),
a AS (
  INSERT INTO artifacts (run_id, node_id, name, version, key, value, created_at, commit_seq, ord)
  SELECT $1, $3, o.name, h.version, $2, o.value, $8, c.seq, o.ord FROM o JOIN h USING (name) CROSS JOIN c),
-- The attempt's trace record rides in the same statement (one transaction), whether or not the commit won.
t AS (
  INSERT INTO attempts (run_id, key, node_id, record)
  SELECT $1, $11::text, $12::text, $13::json WHERE $13::json IS NOT NULL)
SELECT seq FROM c`;

/**
 * The run store on PostgreSQL: a commit is durable on the server (synchronous_commit) when `commitNode` resolves,
 * whether it went alone or in a batch with other runs' commits.
 */
export class PostgresRunStore implements RunStore {
  /** Node commits of concurrent runs share statements (see CommitBatcher). */
  readonly batcher: CommitBatcher;

  constructor(
    private readonly db: PgDatabase,
    commitsInFlight = 1,
  ) {
    this.batcher = new CommitBatcher(db, (q) => this.commitOne(q), commitsInFlight);
  }

  async createRun(run: RunRecord, lease?: LeaseRequest): Promise<void> {
    await this.db.query(
      `INSERT INTO runs (${RUN_COLUMNS}, lease_owner, lease_expires)
       VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10::text, CASE WHEN $10::text IS NULL THEN NULL ELSE ${NOW_MS} + $11::bigint END)`,
      [
        run.id,
        run.appId ?? null,
        JSON.stringify(run.workflow),
        JSON.stringify(run.inputs),
        run.status,
        toJson(run.outputs),
        toJson(run.error),
        run.createdAt,
        run.updatedAt,
        lease?.owner ?? null,
        lease?.ttlMs ?? null,
      ],
      "weft_create_run",
    );
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const [row] = await this.db.query<RunRow>(`SELECT ${READ_COLUMNS} FROM runs WHERE id = $1`, [id], "weft_get_run");
    return row ? toRun(row) : undefined;
  }

  async listRuns(o: ListRunsOptions = {}): Promise<RunRecord[]> {
    const limit = o.limit ?? 50;
    const rows =
      o.appId === undefined
        ? await this.db.query<RunRow>(`SELECT ${READ_COLUMNS} FROM runs ORDER BY created_at DESC, seq DESC LIMIT $1`, [
            limit,
          ])
        : await this.db.query<RunRow>(
            `SELECT ${READ_COLUMNS} FROM runs WHERE app_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`,
            [o.appId, limit],
          );
    return rows.map(toRun);
  }

  async updateRun(
    id: string,
    patch: Partial<Pick<RunRecord, "status" | "outputs" | "error">>,
    owner?: string,
  ): Promise<boolean> {
    // Absent fields keep their value: a flag per field says whether the patch names it.
    const updated = await this.db.query(
      `UPDATE runs SET
         status = COALESCE($2, status),
         outputs = CASE WHEN $3 THEN $4::json ELSE outputs END,
         error = CASE WHEN $5 THEN $6::json ELSE error END,
         updated_at = $7,
         lease_owner = CASE WHEN $2::text <> 'running' THEN NULL ELSE lease_owner END,
         lease_expires = CASE WHEN $2::text <> 'running' THEN NULL ELSE lease_expires END
       WHERE id = $1 AND ($8::text IS NULL OR lease_owner = $8::text)
       RETURNING id`,
      [
        id,
        patch.status ?? null,
        "outputs" in patch,
        toJson(patch.outputs),
        "error" in patch,
        toJson(patch.error),
        Date.now(),
        owner ?? null,
      ],
      "weft_update_run",
    );
    return updated.length > 0;
  }

  async takeRun(id: string, lease: LeaseRequest): Promise<boolean> {
    const taken = await this.db.query(
      `UPDATE runs SET lease_owner = $2, lease_expires = ${NOW_MS} + $3
       WHERE id = $1 AND (lease_owner IS NULL OR lease_owner = $2 OR lease_expires < ${NOW_MS})
       RETURNING id`,
      [id, lease.owner, lease.ttlMs],
      "weft_take_run",
    );
    return taken.length > 0;
  }

  async claimExpiredRuns(lease: LeaseRequest, limit: number): Promise<string[]> {
    const rows = await this.db.query<{ id: string }>(CLAIM_SQL, [lease.owner, lease.ttlMs, limit], "weft_claim_runs");
    return rows.map((r) => r.id);
  }

  async renewLeases(lease: LeaseRequest): Promise<string[]> {
    const rows = await this.db.query<{ id: string }>(
      `UPDATE runs SET lease_expires = ${NOW_MS} + $2 WHERE lease_owner = $1 RETURNING id`,
      [lease.owner, lease.ttlMs],
      "weft_renew_leases",
    );
    return rows.map((r) => r.id);
  }

  async releaseRun(id: string, owner: string): Promise<void> {
    await this.db.query(
      "UPDATE runs SET lease_owner = NULL, lease_expires = NULL WHERE id = $1 AND lease_owner = $2",
      [id, owner],
      "weft_release_run",
    );
  }

  async commitNode(runId: string, c: NodeCommit, attempt?: AttemptRecord): Promise<NodeCommit> {
    if (await this.batcher.commit({ runId, commit: c, attempt, createdAt: Date.now() })) return c;
    // Another committer won; its row is committed (the insert waited for it), so this read sees it.
    const [row] = await this.db.query<CommitRow>(
      "SELECT key, node_id, status, outputs, port, writes FROM node_commits WHERE run_id = $1 AND key = $2",
      [runId, c.key],
      "weft_get_commit",
    );
    return toCommit(row!);
  }

  /** One commit in its own statement; true when it won its key. */
  private async commitOne(q: QueuedCommit): Promise<boolean> {
    const { runId, commit: c, attempt } = q;
    const outputs = Object.entries(c.outputs);
    const inserted = await this.db.query(
      COMMIT_SQL,
      [
        runId,
        c.key,
        c.nodeId,
        c.status,
        JSON.stringify(c.outputs),
        c.port ?? null,
        toJson(c.writes),
        q.createdAt,
        outputs.map(([name]) => name),
        outputs.map(([, value]) => toJson(value)),
        attempt?.key ?? null,
        attempt?.nodeId ?? null,
        attempt ? JSON.stringify(attempt) : null,
      ],
      "weft_commit_node",
    );
    return inserted.length > 0;
  }

  async committed(runId: string): Promise<Map<string, NodeCommit>> {
    const rows = await this.db.query<CommitRow>(
      "SELECT key, node_id, status, outputs, port, writes FROM node_commits WHERE run_id = $1 ORDER BY seq",
      [runId],
      "weft_committed",
    );
    return new Map(rows.map((r) => [r.key, toCommit(r)]));
  }

  async appendAttempt(rec: AttemptRecord): Promise<void> {
    await this.db.query(
      "INSERT INTO attempts (run_id, key, node_id, record) VALUES ($1, $2, $3, $4)",
      [rec.runId, rec.key, rec.nodeId, JSON.stringify(rec)],
      "weft_append_attempt",
    );
  }

  async attempts(runId: string): Promise<AttemptRecord[]> {
    const rows = await this.db.query<{ record: string }>(
      "SELECT record FROM attempts WHERE run_id = $1 ORDER BY seq",
      [runId],
      "weft_attempts",
    );
    return rows.map((r) => json(r.record));
  }

  async artifacts(runId: string, nodeId?: string): Promise<ArtifactVersion[]> {
    const rows = await this.db.query<{
      node_id: string;
      name: string;
      version: number;
      key: string;
      value: string | null;
      created_at: number;
    }>(
      `SELECT node_id, name, version, key, value, created_at FROM artifacts
       WHERE run_id = $1 AND ($2::text IS NULL OR node_id = $2) ORDER BY commit_seq, ord`,
      [runId, nodeId ?? null],
      "weft_artifacts",
    );
    return rows.map((r) => ({
      runId,
      nodeId: r.node_id,
      name: r.name,
      version: r.version,
      key: r.key,
      value: fromJson(r.value),
      createdAt: r.created_at,
    }));
  }
}
