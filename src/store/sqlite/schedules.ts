import type Database from "better-sqlite3";
import type { ScheduleFire, ScheduleIdentity, ScheduleState, ScheduleStore } from "../schedules.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS schedule_state (
  key TEXT PRIMARY KEY, app_id TEXT NOT NULL, node_id TEXT NOT NULL, cron TEXT NOT NULL, timezone TEXT NOT NULL,
  last_tick INTEGER NOT NULL, updated_at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS schedule_fires (
  key TEXT NOT NULL, tick INTEGER NOT NULL, run_id TEXT NOT NULL, claimed_at INTEGER NOT NULL,
  dispatched_at INTEGER, PRIMARY KEY (key, tick));
CREATE INDEX IF NOT EXISTS schedule_fires_pending ON schedule_fires (claimed_at) WHERE dispatched_at IS NULL;
`;

export interface StateRow {
  key: string;
  app_id: string;
  node_id: string;
  cron: string;
  timezone: string;
  last_tick: number | string;
  updated_at: number | string;
}

export interface FireRow {
  key: string;
  tick: number | string;
  run_id: string;
  claimed_at: number | string;
  dispatched_at: number | string | null;
}

export const toScheduleState = (r: StateRow): ScheduleState => ({
  key: r.key,
  appId: r.app_id,
  nodeId: r.node_id,
  cron: r.cron,
  timezone: r.timezone,
  lastTick: Number(r.last_tick),
  updatedAt: Number(r.updated_at),
});

export const toScheduleFire = (r: FireRow): ScheduleFire => ({
  key: r.key,
  tick: Number(r.tick),
  runId: r.run_id,
  claimedAt: Number(r.claimed_at),
  ...(r.dispatched_at !== null ? { dispatchedAt: Number(r.dispatched_at) } : {}),
});

/**
 * Schedule bookkeeping on the shared SQLite connection. Several processes on one file serialise on SQLite's
 * write lock, and the conditional UPDATE (`last_tick < tick`) lets exactly one of them move a schedule on.
 */
export class SqliteScheduleStore implements ScheduleStore {
  private stmts;

  constructor(readonly db: Database.Database) {
    db.exec(SCHEMA);
    this.stmts = {
      get: db.prepare("SELECT * FROM schedule_state WHERE key = ?"),
      list: db.prepare("SELECT * FROM schedule_state ORDER BY key"),
      // A changed cron or zone resets the row; an unchanged one is left as it is.
      sync: db.prepare(
        `INSERT INTO schedule_state (key, app_id, node_id, cron, timezone, last_tick, updated_at) VALUES (?,?,?,?,?,?,?)
         ON CONFLICT (key) DO UPDATE SET app_id = excluded.app_id, node_id = excluded.node_id, cron = excluded.cron,
           timezone = excluded.timezone, last_tick = excluded.last_tick, updated_at = excluded.updated_at
         WHERE schedule_state.cron <> excluded.cron OR schedule_state.timezone <> excluded.timezone`,
      ),
      advance: db.prepare("UPDATE schedule_state SET last_tick = ?, updated_at = ? WHERE key = ? AND last_tick < ?"),
      fire: db.prepare("INSERT INTO schedule_fires (key, tick, run_id, claimed_at) VALUES (?,?,?,?)"),
      dispatched: db.prepare(
        "UPDATE schedule_fires SET dispatched_at = ? WHERE key = ? AND tick = ? AND dispatched_at IS NULL",
      ),
      undispatched: db.prepare(
        "SELECT * FROM schedule_fires WHERE dispatched_at IS NULL AND claimed_at < ? ORDER BY claimed_at, tick",
      ),
      reclaim: db.prepare(
        "UPDATE schedule_fires SET claimed_at = ? WHERE key = ? AND tick = ? AND claimed_at = ? AND dispatched_at IS NULL",
      ),
      fires: db.prepare("SELECT * FROM schedule_fires WHERE key = ? ORDER BY tick DESC LIMIT ?"),
      remove: db.prepare("DELETE FROM schedule_state WHERE key = ?"),
    };
  }

  async get(key: string): Promise<ScheduleState | undefined> {
    const r = this.stmts.get.get(key) as StateRow | undefined;
    return r ? toScheduleState(r) : undefined;
  }

  async list(): Promise<ScheduleState[]> {
    return (this.stmts.list.all() as StateRow[]).map(toScheduleState);
  }

  async sync(s: ScheduleIdentity & { cron: string; timezone: string }, baseline: number, now: number) {
    this.stmts.sync.run(s.key, s.appId, s.nodeId, s.cron, s.timezone, baseline, now);
    return toScheduleState(this.stmts.get.get(s.key) as StateRow);
  }

  async advance(key: string, tick: number, now: number, fire?: { runId: string }): Promise<boolean> {
    return this.db.transaction(() => {
      if (this.stmts.advance.run(tick, now, key, tick).changes !== 1) return false;
      if (fire) this.stmts.fire.run(key, tick, fire.runId, now);
      return true;
    })();
  }

  async markDispatched(key: string, tick: number, now: number): Promise<void> {
    this.stmts.dispatched.run(now, key, tick);
  }

  async undispatched(claimedBefore: number): Promise<ScheduleFire[]> {
    return (this.stmts.undispatched.all(claimedBefore) as FireRow[]).map(toScheduleFire);
  }

  async reclaim(key: string, tick: number, claimedAt: number, now: number): Promise<boolean> {
    return this.stmts.reclaim.run(now, key, tick, claimedAt).changes === 1;
  }

  async fires(key: string, limit: number): Promise<ScheduleFire[]> {
    return (this.stmts.fires.all(key, limit) as FireRow[]).map(toScheduleFire);
  }

  async remove(key: string): Promise<void> {
    this.stmts.remove.run(key);
  }
}
