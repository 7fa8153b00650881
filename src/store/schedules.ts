/**
 * Bookkeeping of schedule triggers: per schedule the last tick the schedulers dealt with (fired or skipped), and
 * one row per fired tick. Claiming a tick is one atomic step in the database, so any number of scheduler
 * processes on one database fire each tick of each schedule exactly once, and a restarted one never fires a
 * tick again nor forgets the ones it missed.
 */

/** Which schedule: the app and its trigger node; `key` is what the rows are kept under. */
export interface ScheduleIdentity {
  key: string;
  appId: string;
  nodeId: string;
}

export interface ScheduleState extends ScheduleIdentity {
  /** The cron expression and zone the state was computed for: a changed schedule starts afresh. */
  cron: string;
  timezone: string;
  /** The last tick dealt with (ms since the epoch): fired, skipped, or the moment the schedule was first seen. */
  lastTick: number;
  updatedAt: number;
}

/** A tick some scheduler claimed and the run it starts; `dispatchedAt` once the run exists (or is queued). */
export interface ScheduleFire {
  key: string;
  tick: number;
  runId: string;
  claimedAt: number;
  dispatchedAt?: number;
}

export interface ScheduleStore {
  get(key: string): Promise<ScheduleState | undefined>;
  list(): Promise<ScheduleState[]>;
  /**
   * Make the stored state match this schedule: insert it with `lastTick = baseline` when absent, or reset it to
   * the baseline when its cron or zone changed (the old schedule's ticks mean nothing for the new one).
   * Concurrent callers agree: the row that ends up stored is returned.
   */
  sync(s: ScheduleIdentity & { cron: string; timezone: string }, baseline: number, now: number): Promise<ScheduleState>;
  /**
   * Move the last tick forward to `tick` if it is behind it, and with `fire`, record the fired tick, both or
   * neither. True only for the one caller that moved it: that caller starts the run.
   */
  advance(key: string, tick: number, now: number, fire?: { runId: string }): Promise<boolean>;
  /** The fired tick's run exists (or is on the queue). */
  markDispatched(key: string, tick: number, now: number): Promise<void>;
  /** Fired ticks claimed before `claimedBefore` whose run was never dispatched (their claimer died), oldest first. */
  undispatched(claimedBefore: number): Promise<ScheduleFire[]>;
  /**
   * Take over a fired tick left undispatched: only while it is still undispatched and claimed at `claimedAt`,
   * so of several schedulers that found it exactly one gets it (its claim time becomes `now`).
   */
  reclaim(key: string, tick: number, claimedAt: number, now: number): Promise<boolean>;
  /** The newest fired ticks of a schedule, newest first. */
  fires(key: string, limit: number): Promise<ScheduleFire[]>;
  /** Forget a schedule that no published version has any more (its fired ticks stay as history). */
  remove(key: string): Promise<void>;
}
