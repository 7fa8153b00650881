import type { ScheduleFire, ScheduleIdentity, ScheduleState, ScheduleStore } from "../schedules.js";
import { type FireRow, type StateRow, toScheduleFire, toScheduleState } from "../sqlite/schedules.js";
import type { PgDatabase } from "./database.js";

/**
 * Schedule bookkeeping on PostgreSQL (migration 12). Moving a schedule on is one statement whose conditional
 * UPDATE takes the row lock: of any number of schedulers on the database exactly one moves a tick, and the
 * fired tick's row is written by the same statement, so both happen or neither does.
 */
export class PostgresScheduleStore implements ScheduleStore {
  constructor(private readonly db: PgDatabase) {}

  async get(key: string): Promise<ScheduleState | undefined> {
    const [r] = await this.db.query<StateRow>("SELECT * FROM schedule_state WHERE key = $1", [key]);
    return r ? toScheduleState(r) : undefined;
  }

  async list(): Promise<ScheduleState[]> {
    return (await this.db.query<StateRow>("SELECT * FROM schedule_state ORDER BY key")).map(toScheduleState);
  }

  async sync(s: ScheduleIdentity & { cron: string; timezone: string }, baseline: number, now: number) {
    await this.db.query(
      `INSERT INTO schedule_state (key, app_id, node_id, cron, timezone, last_tick, updated_at)
       VALUES ($1,$2,$3,$4,$5,$6,$7)
       ON CONFLICT (key) DO UPDATE SET app_id = excluded.app_id, node_id = excluded.node_id, cron = excluded.cron,
         timezone = excluded.timezone, last_tick = excluded.last_tick, updated_at = excluded.updated_at
       WHERE schedule_state.cron <> excluded.cron OR schedule_state.timezone <> excluded.timezone`,
      [s.key, s.appId, s.nodeId, s.cron, s.timezone, baseline, now],
    );
    return (await this.get(s.key))!;
  }

  async advance(key: string, tick: number, now: number, fire?: { runId: string }): Promise<boolean> {
    if (!fire) {
      const rows = await this.db.query(
        "UPDATE schedule_state SET last_tick = $2, updated_at = $3 WHERE key = $1 AND last_tick < $2 RETURNING key",
        [key, tick, now],
      );
      return rows.length === 1;
    }
    const rows = await this.db.query(
      `WITH moved AS (
         UPDATE schedule_state SET last_tick = $2, updated_at = $3 WHERE key = $1 AND last_tick < $2 RETURNING key)
       INSERT INTO schedule_fires (key, tick, run_id, claimed_at) SELECT key, $2, $4, $3 FROM moved RETURNING key`,
      [key, tick, now, fire.runId],
    );
    return rows.length === 1;
  }

  async markDispatched(key: string, tick: number, now: number): Promise<void> {
    await this.db.query(
      "UPDATE schedule_fires SET dispatched_at = $3 WHERE key = $1 AND tick = $2 AND dispatched_at IS NULL",
      [key, tick, now],
    );
  }

  async undispatched(claimedBefore: number): Promise<ScheduleFire[]> {
    const rows = await this.db.query<FireRow>(
      "SELECT * FROM schedule_fires WHERE dispatched_at IS NULL AND claimed_at < $1 ORDER BY claimed_at, tick",
      [claimedBefore],
    );
    return rows.map(toScheduleFire);
  }

  async reclaim(key: string, tick: number, claimedAt: number, now: number): Promise<boolean> {
    const rows = await this.db.query(
      `UPDATE schedule_fires SET claimed_at = $4
       WHERE key = $1 AND tick = $2 AND claimed_at = $3 AND dispatched_at IS NULL RETURNING key`,
      [key, tick, claimedAt, now],
    );
    return rows.length === 1;
  }

  async fires(key: string, limit: number): Promise<ScheduleFire[]> {
    const rows = await this.db.query<FireRow>(
      "SELECT * FROM schedule_fires WHERE key = $1 ORDER BY tick DESC LIMIT $2",
      [key, limit],
    );
    return rows.map(toScheduleFire);
  }

  async remove(key: string): Promise<void> {
    await this.db.query("DELETE FROM schedule_state WHERE key = $1", [key]);
  }
}
