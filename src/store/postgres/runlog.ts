import {
  decodeCursor,
  encodeCursor,
  pageSize,
  type RetentionPolicy,
  type RunLog,
  type RunLogEntry,
  type RunPage,
  type RunQuery,
  type RunTag,
  searchWords,
} from "../runlog.js";
import { statusClauses } from "../runlog-filter.js";
import type { PgDatabase } from "./database.js";
import { fromJson, json } from "./json.js";

/** The stored tsvector of inputs and outputs (migration 10), GIN-indexed. */
const TEXT = "r.search";
const RUN_TABLES = [
  "node_commits",
  "attempts",
  "artifacts",
  "artifact_heads",
  "run_tags",
  "run_events",
  "human_forms",
  "service_runs",
];
const KEEP = "status NOT IN ('running', 'paused')";

/** The run log on PostgreSQL: tags beside the runs table, a GIN full-text index over inputs and outputs. */
export class PostgresRunLog implements RunLog {
  constructor(private readonly db: PgDatabase) {}

  async tag(runId: string, t: RunTag): Promise<void> {
    await this.db.query(
      `INSERT INTO run_tags (run_id, source, version, draft, trigger_id) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (run_id) DO UPDATE SET source = EXCLUDED.source, version = EXCLUDED.version, draft = EXCLUDED.draft,
         trigger_id = EXCLUDED.trigger_id`,
      [runId, t.source, t.version ?? null, t.draft ?? null, t.triggerId ?? null],
    );
  }

  async count(q: RunQuery): Promise<number> {
    const { where, args } = this.filter({ ...q, cursor: undefined });
    const [row] = await this.db.query<{ n: string }>(
      `SELECT COUNT(*) AS n FROM runs r LEFT JOIN run_tags t ON t.run_id = r.id ${where}`,
      args,
    );
    return Number(row!.n);
  }

  async query(q: RunQuery): Promise<RunPage> {
    const limit = pageSize(q);
    const { where, args } = this.filter(q);
    const rows = await this.db.query<any>(
      `SELECT r.id, r.app_id, r.status, r.inputs, r.outputs, r.error, r.created_at, r.updated_at,
         r.workflow->>'name' AS workflow_name, t.source, t.version, t.draft, t.trigger_id
       FROM runs r LEFT JOIN run_tags t ON t.run_id = r.id ${where}
       ORDER BY r.created_at DESC, r.id DESC LIMIT $${args.length + 1}`,
      [...args, limit + 1],
    );
    const runs = rows.slice(0, limit).map(toEntry);
    const last = runs.at(-1);
    return { runs, ...(rows.length > limit && last ? { next: encodeCursor(last) } : {}) };
  }

  private filter(q: RunQuery): { where: string; args: unknown[] } {
    const where: string[] = [];
    const args: unknown[] = [];
    const arg = (v: unknown) => {
      args.push(v);
      return `$${args.length}`;
    };
    if (q.appId !== undefined) where.push(`r.app_id = ${arg(q.appId)}`);
    if (q.status?.length) {
      const s = statusClauses(q.status);
      const any: string[] = [];
      if (s.plain.length) any.push(`r.status = ANY(${arg(s.plain)}::text[])`);
      const cancelled = "(r.error->>'code') = 'run.cancelled'";
      if (s.failed) any.push(`(r.status = 'failed' AND NOT COALESCE(${cancelled}, false))`);
      if (s.cancelled) any.push(`(r.status = 'failed' AND COALESCE(${cancelled}, false))`);
      where.push(`(${any.join(" OR ")})`);
    }
    if (q.source?.length) where.push(`t.source = ANY(${arg(q.source)}::text[])`);
    if (q.version !== undefined) where.push(`t.version = ${arg(q.version)}`);
    if (q.triggerId !== undefined) where.push(`t.trigger_id = ${arg(q.triggerId)}`);
    if (q.since !== undefined) where.push(`r.created_at >= ${arg(q.since)}`);
    if (q.until !== undefined) where.push(`r.created_at < ${arg(q.until)}`);
    if (q.search !== undefined)
      where.push(`${TEXT} @@ plainto_tsquery('simple', ${arg(searchWords(q.search).join(" "))})`);
    if (q.cursor !== undefined) {
      const c = decodeCursor(q.cursor);
      where.push(`(r.created_at, r.id) < (${arg(c.createdAt)}::bigint, ${arg(c.id)}::text)`);
    }
    return { where: where.length ? `WHERE ${where.join(" AND ")}` : "", args };
  }

  async prune(policy: RetentionPolicy, now = Date.now()): Promise<number> {
    const doomed = new Set<string>();
    if (policy.maxAgeDays !== undefined) {
      const rows = await this.db.query<{ id: string }>(`SELECT id FROM runs WHERE created_at < $1 AND ${KEEP}`, [
        now - policy.maxAgeDays * 86_400_000,
      ]);
      for (const r of rows) doomed.add(r.id);
    }
    if (policy.maxRunsPerApp !== undefined) {
      const rows = await this.db.query<{ id: string }>(
        `SELECT id FROM (SELECT id, status, ROW_NUMBER() OVER (PARTITION BY app_id ORDER BY created_at DESC, id DESC) AS n
         FROM runs WHERE app_id IS NOT NULL) x WHERE n > $1 AND ${KEEP}`,
        [policy.maxRunsPerApp],
      );
      for (const r of rows) doomed.add(r.id);
    }
    const ids = [...doomed];
    // In chunks, so a large backlog never holds its locks long enough to stall running runs.
    for (let i = 0; i < ids.length; i += 500) {
      const chunk = ids.slice(i, i + 500);
      await this.db.tx(async (q) => {
        for (const t of RUN_TABLES) await q(`DELETE FROM ${t} WHERE run_id = ANY($1::text[])`, [chunk]);
        await q(`DELETE FROM runs WHERE id = ANY($1::text[]) AND ${KEEP}`, [chunk]);
      });
    }
    return ids.length;
  }
}

function toEntry(r: any): RunLogEntry {
  const outputs = fromJson<Record<string, unknown>>(r.outputs);
  const error = fromJson<RunLogEntry["error"]>(r.error);
  return {
    id: r.id,
    ...(r.app_id !== null ? { appId: r.app_id } : {}),
    status: r.status,
    inputs: json(r.inputs),
    ...(outputs !== undefined ? { outputs } : {}),
    ...(error !== undefined ? { error } : {}),
    createdAt: Number(r.created_at),
    updatedAt: Number(r.updated_at),
    workflowName: r.workflow_name ?? "",
    ...(r.source !== null ? { source: r.source } : {}),
    ...(r.version !== null ? { version: r.version } : {}),
    ...(r.draft ? { draft: true } : {}),
    ...(r.trigger_id ? { triggerId: r.trigger_id } : {}),
  };
}
