import type { ArtifactVersion, AttemptRecord, ListRunsOptions, NodeCommit, RunRecord, RunStore } from "../runs.js";
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

/** The run store on PostgreSQL: a commit is durable on the server (synchronous_commit) when `commitNode` resolves. */
export class PostgresRunStore implements RunStore {
  constructor(private readonly db: PgDatabase) {}

  async createRun(run: RunRecord): Promise<void> {
    await this.db.query(
      `INSERT INTO runs (${RUN_COLUMNS}) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
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
      ],
      "weft_create_run",
    );
  }

  async getRun(id: string): Promise<RunRecord | undefined> {
    const [row] = await this.db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs WHERE id = $1`, [id], "weft_get_run");
    return row ? toRun(row) : undefined;
  }

  async listRuns(o: ListRunsOptions = {}): Promise<RunRecord[]> {
    const limit = o.limit ?? 50;
    const rows =
      o.appId === undefined
        ? await this.db.query<RunRow>(`SELECT ${RUN_COLUMNS} FROM runs ORDER BY created_at DESC, seq DESC LIMIT $1`, [
            limit,
          ])
        : await this.db.query<RunRow>(
            `SELECT ${RUN_COLUMNS} FROM runs WHERE app_id = $1 ORDER BY created_at DESC, seq DESC LIMIT $2`,
            [o.appId, limit],
          );
    return rows.map(toRun);
  }

  async updateRun(id: string, patch: Partial<Pick<RunRecord, "status" | "outputs" | "error">>): Promise<void> {
    // Absent fields keep their value: a flag per field says whether the patch names it.
    await this.db.query(
      `UPDATE runs SET
         status = COALESCE($2, status),
         outputs = CASE WHEN $3 THEN $4::json ELSE outputs END,
         error = CASE WHEN $5 THEN $6::json ELSE error END,
         updated_at = $7
       WHERE id = $1`,
      [
        id,
        patch.status ?? null,
        "outputs" in patch,
        toJson(patch.outputs),
        "error" in patch,
        toJson(patch.error),
        Date.now(),
      ],
      "weft_update_run",
    );
  }

  async commitNode(runId: string, c: NodeCommit, attempt?: AttemptRecord): Promise<NodeCommit> {
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
        Date.now(),
        outputs.map(([name]) => name),
        outputs.map(([, value]) => toJson(value)),
        attempt?.key ?? null,
        attempt?.nodeId ?? null,
        attempt ? JSON.stringify(attempt) : null,
      ],
      "weft_commit_node",
    );
    if (inserted.length > 0) return c;
    // Another committer won; its row is committed (the insert waited for it), so this read sees it.
    const [row] = await this.db.query<CommitRow>(
      "SELECT key, node_id, status, outputs, port, writes FROM node_commits WHERE run_id = $1 AND key = $2",
      [runId, c.key],
      "weft_get_commit",
    );
    return toCommit(row!);
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
