import { WeftError } from "../../ir/errors.js";
import type { ScheduleStore } from "../../store/schedules.js";
import { newId } from "../../util/ids.js";
import type { BrokenSchedule, ScheduleEntry } from "./sources.js";
import { decideTick } from "./ticks.js";

/** Starts the run of one fired tick. Called again with the same `runId` when its first claimer died before it. */
export type FireDispatch = (entry: ScheduleEntry, fire: { tick: number; runId: string }) => Promise<void>;

export interface SchedulerOptions {
  store: ScheduleStore;
  /** The schedules that exist now (published apps' trigger nodes), asked on every poll. */
  schedules: () => Promise<{ entries: ScheduleEntry[]; broken: BrokenSchedule[] }>;
  dispatch: FireDispatch;
  now?: () => number;
  /** How often the schedules are looked at (ms). */
  pollMs?: number;
  /** How late a due tick may be and still count as on time, not missed (ms); see `decideTick`. */
  graceMs?: number;
  /** A claimed tick whose run was not dispatched after this long (its claimer died) is dispatched again (ms). */
  redispatchAfterMs?: number;
  log?: (line: string) => void;
}

/** What one poll did, for logs and tests. */
export interface PollReport {
  fired: Array<{ key: string; tick: number; runId: string; missed: number }>;
  skipped: Array<{ key: string; tick: number; missed: number }>;
  redispatched: Array<{ key: string; tick: number; runId: string }>;
  failed: Array<{ key: string; error: string }>;
}

export const DEFAULT_POLL_MS = 1_000;
export const DEFAULT_GRACE_MS = 15_000;
export const DEFAULT_REDISPATCH_MS = 30_000;

const why = (e: unknown) =>
  e instanceof WeftError ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);

/**
 * Fires the ticks of schedule triggers. Any number of schedulers (every `weft serve` and `weft worker` on one
 * database) may run at once: each tick is claimed in the store by one atomic step, so it fires exactly once, and
 * the bookkeeping survives restarts, so a restarted scheduler neither fires a tick again nor forgets the ones
 * that fell while it was down (the schedule's missed-tick policy decides those).
 */
export class Scheduler {
  private timer?: ReturnType<typeof setTimeout>;
  private running?: Promise<unknown>;
  private stopped = true;
  /** Set by `stop()`, also when only `pollOnce()` was ever called: no tick is claimed once it is set. */
  private stopping = false;
  private reported = new Set<string>();
  private readonly now: () => number;

  constructor(private readonly o: SchedulerOptions) {
    this.now = o.now ?? Date.now;
  }

  /** Look at every schedule once: fire or skip what is due, dispatch again what a dead claimer left. */
  async pollOnce(): Promise<PollReport> {
    const report: PollReport = { fired: [], skipped: [], redispatched: [], failed: [] };
    const { entries, broken } = await this.o.schedules();
    this.reportBroken(broken);
    const byKey = new Map(entries.map((e) => [e.key, e]));
    for (const entry of entries) {
      try {
        await this.pollEntry(entry, report);
      } catch (e) {
        report.failed.push({ key: entry.key, error: why(e) });
        this.log(`schedule ${entry.key}: ${why(e)}`);
      }
    }
    for (const s of await this.o.store.list()) if (!byKey.has(s.key)) await this.o.store.remove(s.key);
    await this.redispatch(byKey, report);
    return report;
  }

  private async pollEntry(entry: ScheduleEntry, report: PollReport): Promise<void> {
    const now = this.now();
    const state = await this.o.store.sync(
      {
        key: entry.key,
        appId: entry.appId,
        nodeId: entry.nodeId,
        cron: entry.spec.cron,
        timezone: entry.spec.timezone,
      },
      now,
      now,
    );
    // A disabled trigger's ticks are dealt with as they pass, so enabling it again starts no catch-up run.
    if (!entry.enabled) {
      if (state.lastTick < now) await this.o.store.advance(entry.key, now, now);
      return;
    }
    const d = decideTick(entry.spec, state.lastTick, now, this.o.graceMs ?? DEFAULT_GRACE_MS);
    // Shutdown began while this poll ran: claim nothing more; a running scheduler deals with the tick instead.
    if (d.kind === "none" || this.stopping) return;
    if (d.kind === "skip") {
      if (await this.o.store.advance(entry.key, d.tick, now))
        report.skipped.push({ key: entry.key, tick: d.tick, missed: d.missed });
      return;
    }
    const runId = newId();
    if (!(await this.o.store.advance(entry.key, d.tick, now, { runId }))) return;
    report.fired.push({ key: entry.key, tick: d.tick, runId, missed: d.missed });
    await this.o.dispatch(entry, { tick: d.tick, runId });
    await this.o.store.markDispatched(entry.key, d.tick, this.now());
  }

  /** Fired ticks whose claimer died between the claim and the run: one scheduler takes each over. */
  private async redispatch(byKey: Map<string, ScheduleEntry>, report: PollReport): Promise<void> {
    const now = this.now();
    for (const f of await this.o.store.undispatched(now - (this.o.redispatchAfterMs ?? DEFAULT_REDISPATCH_MS))) {
      if (this.stopping) return;
      if (!(await this.o.store.reclaim(f.key, f.tick, f.claimedAt, now))) continue;
      const entry = byKey.get(f.key);
      if (!entry) {
        this.log(
          `schedule ${f.key}: tick ${new Date(f.tick).toISOString()} not run: the schedule is no longer published`,
        );
        await this.o.store.markDispatched(f.key, f.tick, now);
        continue;
      }
      try {
        await this.o.dispatch(entry, { tick: f.tick, runId: f.runId });
        await this.o.store.markDispatched(f.key, f.tick, this.now());
        report.redispatched.push({ key: f.key, tick: f.tick, runId: f.runId });
      } catch (e) {
        report.failed.push({ key: f.key, error: why(e) });
        this.log(`schedule ${f.key}: ${why(e)}`);
      }
    }
  }

  /** Poll every `pollMs` until `stop()`; a poll that fails is logged and the next one tries again. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.stopping = false;
    const loop = async () => {
      if (this.stopped) return;
      this.running = this.pollOnce().catch((e) => this.log(`schedules: ${why(e)}`));
      await this.running;
      if (!this.stopped) this.timer = setTimeout(loop, this.o.pollMs ?? DEFAULT_POLL_MS);
    };
    void loop();
  }

  /**
   * Stop polling; resolves once a poll under way has ended. From the call on no tick is claimed (a poll under way
   * finishes the dispatch it claimed, claims nothing more), so a process shutting down leaves the next ticks to
   * the schedulers still running.
   */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private reportBroken(broken: BrokenSchedule[]): void {
    for (const b of broken) {
      const k = `${b.appId}:${b.nodeId}:${b.error.message}`;
      if (this.reported.has(k)) continue;
      this.reported.add(k);
      this.log(`schedule ${b.appId}:${b.nodeId} does not run: ${b.error.message}`);
    }
  }

  private log(line: string): void {
    (this.o.log ?? ((l) => process.stderr.write(`${l}\n`)))(`weft scheduler: ${line}`);
  }
}
