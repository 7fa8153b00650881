import type Database from "better-sqlite3";
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
import { GroupCommit } from "./group-commit.js";

// The full-text index follows the runs table through triggers, so nothing that writes runs has to know of it.
const SCHEMA = `
CREATE TABLE IF NOT EXISTS run_tags (run_id TEXT PRIMARY KEY, source TEXT NOT NULL, version INTEGER, draft INTEGER,
  trigger_id TEXT);
CREATE INDEX IF NOT EXISTS run_tags_trigger ON run_tags(trigger_id) WHERE trigger_id IS NOT NULL;
CREATE INDEX IF NOT EXISTS runs_recent_id ON runs(created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS runs_app_recent_id ON runs(app_id, created_at DESC, id DESC);
CREATE INDEX IF NOT EXISTS runs_status ON runs(status, created_at DESC);
CREATE TRIGGER IF NOT EXISTS run_text_insert AFTER INSERT ON runs BEGIN
  INSERT INTO run_text (rowid, body) VALUES (new.rowid, new.inputs || ' ' || COALESCE(new.outputs, ''));
END;
CREATE TRIGGER IF NOT EXISTS run_text_update AFTER UPDATE OF outputs ON runs BEGIN
  DELETE FROM run_text WHERE rowid = old.rowid;
  INSERT INTO run_text (rowid, body) VALUES (new.rowid, new.inputs || ' ' || COALESCE(new.outputs, ''));
END;
CREATE TRIGGER IF NOT EXISTS run_text_delete AFTER DELETE ON runs BEGIN
  DELETE FROM run_text WHERE rowid = old.rowid;
END;`;

/** Tables holding rows of one run (beside `runs`), emptied with it. */
const RUN_TABLES = ["node_commits", "attempts", "artifacts", "run_tags", "run_events", "human_forms", "service_runs"];

const ftsQuery = (words: string[]) => words.map((w) => `"${w}"`).join(" ");

/** The run log on SQLite: tags beside the runs table, FTS5 over inputs and outputs. */
export class SqliteRunLog implements RunLog {
  constructor(
    private readonly db: Database.Database,
    /** A run's tag joins the group commit of the runs' own writes (alone it was a sync on the event loop). */
    private readonly group: GroupCommit = new GroupCommit(db),
  ) {
    db.transaction(() => {
      // Databases from before triggers: the column is added once (SQLite's way; PostgreSQL has migration 11).
      const tagged = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'run_tags'").get();
      const cols = tagged ? (db.prepare("PRAGMA table_info(run_tags)").all() as Array<{ name: string }>) : [];
      if (tagged && !cols.some((c) => c.name === "trigger_id"))
        db.exec("ALTER TABLE run_tags ADD COLUMN trigger_id TEXT");
      const indexed = db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'run_text'").get();
      if (!indexed) {
        db.exec("CREATE VIRTUAL TABLE run_text USING fts5(body)");
        // Runs stored before the index existed are indexed once, here.
        db.exec("INSERT INTO run_text (rowid, body) SELECT rowid, inputs || ' ' || COALESCE(outputs, '') FROM runs");
      }
      db.exec(SCHEMA);
    })();
  }

  async tag(runId: string, t: RunTag): Promise<void> {
    await this.group.write(() =>
      this.db
        .prepare("INSERT OR REPLACE INTO run_tags (run_id, source, version, draft, trigger_id) VALUES (?,?,?,?,?)")
        .run(runId, t.source, t.version ?? null, t.draft ? 1 : null, t.triggerId ?? null),
    );
  }

  async count(q: RunQuery): Promise<number> {
    const { where, args } = this.filter({ ...q, cursor: undefined });
    const row = this.db
      .prepare(`SELECT COUNT(*) AS n FROM runs r LEFT JOIN run_tags t ON t.run_id = r.id ${where}`)
      .get(...args) as { n: number };
    return row.n;
  }

  async query(q: RunQuery): Promise<RunPage> {
    const limit = pageSize(q);
    const { where, args } = this.filter(q);
    const rows = this.db
      .prepare(
        `SELECT r.id, r.app_id, r.status, r.inputs, r.outputs, r.error, r.created_at, r.updated_at,
           json_extract(r.workflow, '$.name') AS workflow_name, t.source, t.version, t.draft, t.trigger_id
         FROM runs r LEFT JOIN run_tags t ON t.run_id = r.id ${where}
         ORDER BY r.created_at DESC, r.id DESC LIMIT ?`,
      )
      .all(...args, limit + 1) as any[];
    const runs = rows.slice(0, limit).map(toEntry);
    const last = runs.at(-1);
    return { runs, ...(rows.length > limit && last ? { next: encodeCursor(last) } : {}) };
  }

  private filter(q: RunQuery): { where: string; args: unknown[] } {
    const where: string[] = [];
    const args: unknown[] = [];
    if (q.appId !== undefined) where.push("r.app_id = ?") && args.push(q.appId);
    if (q.status?.length) {
      const s = statusClauses(q.status);
      const any: string[] = [];
      if (s.plain.length) any.push(`r.status IN (${s.plain.map(() => "?").join(",")})`) && args.push(...s.plain);
      const cancelled = "json_extract(r.error, '$.code') = 'run.cancelled'";
      if (s.failed) any.push(`(r.status = 'failed' AND COALESCE(${cancelled}, 0) = 0)`);
      if (s.cancelled) any.push(`(r.status = 'failed' AND ${cancelled})`);
      where.push(`(${any.join(" OR ")})`);
    }
    if (q.source?.length) where.push(`t.source IN (${q.source.map(() => "?").join(",")})`) && args.push(...q.source);
    if (q.version !== undefined) where.push("t.version = ?") && args.push(q.version);
    if (q.triggerId !== undefined) where.push("t.trigger_id = ?") && args.push(q.triggerId);
    if (q.since !== undefined) where.push("r.created_at >= ?") && args.push(q.since);
    if (q.until !== undefined) where.push("r.created_at < ?") && args.push(q.until);
    if (q.search !== undefined)
      where.push("r.rowid IN (SELECT rowid FROM run_text WHERE run_text MATCH ?)") &&
        args.push(ftsQuery(searchWords(q.search)));
    if (q.cursor !== undefined) {
      const c = decodeCursor(q.cursor);
      where.push("(r.created_at < ? OR (r.created_at = ? AND r.id < ?))") && args.push(c.createdAt, c.createdAt, c.id);
    }
    return { where: where.length ? `WHERE ${where.join(" AND ")}` : "", args };
  }

  async prune(policy: RetentionPolicy, now = Date.now()): Promise<number> {
    const doomed: string[] = [];
    const keep = "status NOT IN ('running', 'paused')";
    if (policy.maxAgeDays !== undefined) {
      const before = now - policy.maxAgeDays * 86_400_000;
      const rows = this.db.prepare(`SELECT id FROM runs WHERE created_at < ? AND ${keep}`).all(before) as any[];
      doomed.push(...rows.map((r) => r.id));
    }
    if (policy.maxRunsPerApp !== undefined) {
      const rows = this.db
        .prepare(
          `SELECT id FROM (SELECT id, status, ROW_NUMBER() OVER (PARTITION BY app_id ORDER BY created_at DESC, id DESC) AS n
           FROM runs WHERE app_id IS NOT NULL) WHERE n > ? AND ${keep}`,
        )
        .all(policy.maxRunsPerApp) as any[];
      doomed.push(...rows.map((r) => r.id));
    }
    const ids = [...new Set(doomed)];
    const tables = RUN_TABLES.filter((t) => this.db.prepare("SELECT 1 FROM sqlite_master WHERE name = ?").get(t));
    const del = this.db.transaction((chunk: string[]) => {
      const marks = chunk.map(() => "?").join(",");
      for (const t of tables) this.db.prepare(`DELETE FROM ${t} WHERE run_id IN (${marks})`).run(...chunk);
      this.db.prepare(`DELETE FROM runs WHERE id IN (${marks}) AND ${keep}`).run(...chunk);
    });
    // In chunks, so a large backlog never holds the write lock long enough to stall running runs.
    for (let i = 0; i < ids.length; i += 500) del(ids.slice(i, i + 500));
    return ids.length;
  }
}

function toEntry(r: any): RunLogEntry {
  return {
    id: r.id,
    ...(r.app_id !== null ? { appId: r.app_id } : {}),
    status: r.status,
    inputs: JSON.parse(r.inputs),
    ...(r.outputs !== null ? { outputs: JSON.parse(r.outputs) } : {}),
    ...(r.error !== null ? { error: JSON.parse(r.error) } : {}),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    workflowName: r.workflow_name ?? "",
    ...(r.source !== null ? { source: r.source } : {}),
    ...(r.version !== null ? { version: r.version } : {}),
    ...(r.draft ? { draft: true } : {}),
    ...(r.trigger_id ? { triggerId: r.trigger_id } : {}),
  };
}
