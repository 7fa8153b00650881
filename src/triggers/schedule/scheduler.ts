import { WeftError } from "../../ir/errors.js";
import type { ScheduleStore } from "../../store/schedules.js";
import { newId } from "../../util/ids.js";
import type { BrokenSchedule, ScheduleEntry } from "./sources.js";
import { decideTick, nextTicks } from "./ticks.js";

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

/** What decides a schedule's ticks: when it changes (a republish, an enable), what this process knew is void. */
const specKey = (e: ScheduleEntry) => JSON.stringify([e.version, e.enabled, e.spec]);

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
  /**
   * Per schedule, a tick this process knows is dealt with (its state's last tick, or one it advanced to) and the
   * first tick after it, for the schedule as it was then (`spec`: version, cron, zone, enabled). The store's last
   * tick only moves forward, so until `nextDue` nothing can be due and the poll leaves the store alone: between
   * ticks a schedule costs no query (it was two a schedule a poll in every process).
   */
  private known = new Map<string, { spec: string; nextDue: number }>();
  /** When the dead claimers' ticks and the bookkeeping of removed schedules were last looked at, and for which. */
  private lastSweep = Number.NEGATIVE_INFINITY;
  private sweptKeys = "";
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
    for (const key of this.known.keys()) if (!byKey.has(key)) this.known.delete(key);
    // A claimer that died is noticed after `redispatchAfterMs` (30 s), so looking for its ticks every sixth of
    // that is soon enough; the bookkeeping of a schedule that went is removed as soon as this process sees it go.
    const keys = [...byKey.keys()].sort().join("\n");
    const now = this.now();
    const redispatchMs = this.o.redispatchAfterMs ?? DEFAULT_REDISPATCH_MS;
    if (keys !== this.sweptKeys || now - this.lastSweep >= redispatchMs / 6 || now < this.lastSweep) {
      for (const s of await this.o.store.list()) if (!byKey.has(s.key)) await this.o.store.remove(s.key);
      await this.redispatch(byKey, report);
      this.sweptKeys = keys;
      this.lastSweep = now;
    }
    return report;
  }

  /** Whether no tick of `entry` can be due at `now`, from what this process last saw of it. */
  private nothingDue(entry: ScheduleEntry, now: number): boolean {
    const k = this.known.get(entry.key);
    return k !== undefined && k.spec === specKey(entry) && now < k.nextDue;
  }

  /** Remember that every tick of `entry` up to `lastTick` is dealt with. */
  private remember(entry: ScheduleEntry, lastTick: number): void {
    const [next] = nextTicks(entry.spec, lastTick);
    this.known.set(entry.key, { spec: specKey(entry), nextDue: next ?? Number.POSITIVE_INFINITY });
  }

  private async pollEntry(entry: ScheduleEntry, report: PollReport): Promise<void> {
    const now = this.now();
    if (this.nothingDue(entry, now)) return;
    this.known.delete(entry.key);
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
      this.remember(entry, state.lastTick);
      return;
    }
    const d = decideTick(entry.spec, state.lastTick, now, this.o.graceMs ?? DEFAULT_GRACE_MS);
    if (d.kind === "none") this.remember(entry, state.lastTick);
    // Shutdown began while this poll ran: claim nothing more; a running scheduler deals with the tick instead.
    if (d.kind === "none" || this.stopping) return;
    if (d.kind === "skip") {
      const skipped = await this.o.store.advance(entry.key, d.tick, now);
      // Advanced here or by another scheduler: either way the store's last tick is now at least this one.
      this.remember(entry, d.tick);
      if (skipped) report.skipped.push({ key: entry.key, tick: d.tick, missed: d.missed });
      return;
    }
    const runId = newId();
    const claimed = await this.o.store.advance(entry.key, d.tick, now, { runId });
    this.remember(entry, d.tick);
    if (!claimed) return;
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
