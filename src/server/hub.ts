import { newId } from "../util/ids.js";
import type { RunEvent } from "../engine/events.js";
import { StoredHumanInput } from "../engine/human-input.js";
import { type RunResult, resumeRun, startRun } from "../engine/run.js";
import { WeftError } from "../ir/errors.js";
import type { ExecServices } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import type { AppStore, EventBatch } from "../store/apps.js";
import type { FormStore } from "../store/forms.js";
import type { RunStore } from "../store/runs.js";

/** A run event as the hub keeps and stores it: stamped with the time it happened (ms since the epoch). */
export type StampedEvent = RunEvent & { at?: number };

/** Called after every run segment ends (finished or paused), before its waiters hear of it. */
export type SegmentListener = (runId: string, result: RunResult) => Promise<void> | void;

/** What a run segment needs besides its workflow: the values Dify's service API gives a chat turn. */
export interface RunContext {
  appId?: string;
  sys?: Record<string, unknown>;
  conversation?: Record<string, unknown>;
}

/** Operators see why a run was lost: one line on stderr. */
function logFailure(what: string, err: unknown): void {
  const why =
    err instanceof WeftError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
  process.stderr.write(`weft server: ${what}: ${why}\n`);
}

/** One run's event log while this process runs it; subscribers get every event from any offset. */
interface LiveRun {
  events: StampedEvent[];
  /** How many of `events` are already in the database. */
  persisted: number;
  active: boolean;
  /** Running in another server process on the same database: the log is followed from there. */
  elsewhere?: boolean;
  listeners: Set<() => void>;
  done?: Promise<RunResult>;
}

export interface RunHubOptions {
  runs: RunStore;
  apps: AppStore;
  /** Human-input forms of paused runs. */
  forms: FormStore;
  services: Partial<ExecServices>;
  concurrency?: number;
  /** Finished runs whose logs stay in memory (older ones are read back from the database). */
  keepFinished?: number;
  /** How often new events of active runs are written to the database (one transaction for all runs). */
  flushMs?: number;
  /**
   * The system values and conversation a resumed run continues with (the service API keeps them beside the
   * run; the run record holds only its inputs). Asked on every resume that is not given a context.
   */
  contextOf?: (runId: string) => Promise<RunContext>;
}

/**
 * Starts runs in this process and fans their events out to SSE clients from memory. New events are written
 * to the database in batches (every `flushMs`, one transaction for all active runs, so streaming never waits
 * on a disk sync per event) and at the end of each run segment, so a client that connects late, or to a
 * restarted server, still gets the whole log in order.
 */
export class RunHub {
  private live = new Map<string, LiveRun>();
  private finished: string[] = [];
  private controllers = new Map<string, AbortController>();
  private dirty = new Map<string, LiveRun>();
  private flushTimer?: ReturnType<typeof setTimeout>;
  private readonly listeners: SegmentListener[] = [];
  private readonly services: Partial<ExecServices>;

  constructor(private o: RunHubOptions) {
    // A human-input node pauses the run durably: its form is stored beside the run.
    this.services = { ...o.services, humanInput: new StoredHumanInput(o.forms) };
  }

  /** Hear of every run segment's end (the service API saves chat messages, timers arm form timeouts). */
  onSegmentEnd(l: SegmentListener): void {
    this.listeners.push(l);
  }

  private async entry(runId: string): Promise<LiveRun> {
    const known = this.live.get(runId);
    if (known) return known;
    const events = await this.o.apps.events(runId);
    const record = await this.o.runs.getRun(runId);
    // Another caller may have loaded (or started) this run while we read.
    const raced = this.live.get(runId);
    if (raced) return raced;
    const e: LiveRun = { events, persisted: events.length, active: false, listeners: new Set() };
    this.live.set(runId, e);
    if (record?.status === "running") {
      e.elsewhere = true;
      this.follow(runId, e);
    } else this.retire(runId);
    return e;
  }

  /**
   * A run another server runs on this database: read its log as that server writes it (every `flushMs`)
   * until its record says it ended and its last events are in, or until nobody here listens any more.
   */
  private follow(runId: string, e: LiveRun): void {
    const every = this.o.flushMs ?? 500;
    let endedTicks = 0;
    const tick = async () => {
      if (!e.elsewhere) return; // resumed here meanwhile
      try {
        const more = await this.o.apps.events(runId, e.events.length - 1);
        const status = (await this.o.runs.getRun(runId))?.status;
        if (!e.elsewhere) return;
        e.events.push(...more);
        e.persisted = e.events.length;
        // The record ends before the other server writes the last events: wait for run_finished (or a tick).
        if (status !== "running") endedTicks++;
        const ended = endedTicks > 1 || (endedTicks === 1 && e.events.at(-1)?.type === "run_finished");
        if (ended) e.elsewhere = false;
        if (more.length > 0 || ended) for (const l of e.listeners) l();
        if (ended) return this.retire(runId);
        if (e.listeners.size === 0) {
          e.elsewhere = false;
          this.live.delete(runId);
          return;
        }
      } catch (err) {
        logFailure(`following run ${runId} from the database`, err);
      }
      setTimeout(() => void tick(), every).unref?.();
    };
    setTimeout(() => void tick(), every).unref?.();
  }

  /** Keep a bounded number of finished logs in memory; older ones are read back from the database. */
  private retire(runId: string): void {
    this.finished.push(runId);
    const keep = this.o.keepFinished ?? 500;
    while (this.finished.length > keep) {
      const old = this.finished.shift()!;
      const x = this.live.get(old);
      if (x && !x.active && x.listeners.size === 0) this.live.delete(old);
    }
  }

  private push(runId: string, e: LiveRun, ev: RunEvent): void {
    e.events.push({ ...ev, at: Date.now() });
    this.dirty.set(runId, e);
    if (!this.flushTimer) {
      this.flushTimer = setTimeout(() => void this.flush(), this.o.flushMs ?? 500);
      this.flushTimer.unref?.();
    }
    for (const l of e.listeners) l();
  }

  /** The events of `e` not yet written, marked written; a failed write puts them back (see `write`). */
  private take(runId: string, e: LiveRun): EventBatch | undefined {
    this.dirty.delete(runId);
    if (e.persisted >= e.events.length) return undefined;
    const batch = { runId, from: e.persisted, events: e.events.slice(e.persisted) };
    e.persisted = e.events.length;
    return batch;
  }

  private async write(batches: EventBatch[]): Promise<void> {
    if (batches.length === 0) return;
    try {
      await this.o.apps.appendEvents(batches);
    } catch (err) {
      // Keep the events pending so the next flush writes them; live clients are served from memory meanwhile.
      for (const b of batches) {
        const e = this.live.get(b.runId);
        if (!e) continue;
        e.persisted = Math.min(e.persisted, b.from);
        this.dirty.set(b.runId, e);
      }
      process.stderr.write(`weft server: writing run events failed: ${(err as Error).message}\n`);
    }
  }

  /** Write every pending event now (one transaction for all runs). */
  async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batches = [...this.dirty].flatMap(([runId, e]) => this.take(runId, e) ?? []);
    await this.write(batches);
  }

  private track(runId: string, e: LiveRun, p: Promise<RunResult>): Promise<RunResult> {
    e.active = true;
    const end = async (result?: RunResult) => {
      // The log is in the database before anyone hears the run ended.
      await this.write([this.take(runId, e)].filter((b) => b !== undefined));
      if (result) await this.tell(runId, result);
      e.active = false;
      this.controllers.delete(runId);
      for (const l of e.listeners) l();
      this.retire(runId);
    };
    e.done = p.then(
      async (result) => {
        await end(result);
        return result;
      },
      async (err: unknown) => {
        await end();
        throw err;
      },
    );
    // A failing run is reported through its events and record; failing to record it is logged here.
    e.done.catch((err: unknown) => logFailure(`run ${runId} could not be recorded`, err));
    return e.done;
  }

  private async tell(runId: string, result: RunResult): Promise<void> {
    for (const l of this.listeners) {
      try {
        await l(runId, result);
      } catch (err) {
        logFailure(`after run ${runId} ${result.status}`, err);
      }
    }
  }

  /** Resolves once the run record is stored, so a 202 with its id means the run exists; rejects otherwise. */
  async start(
    wf: Workflow,
    opts: RunContext & {
      appId: string;
      inputs: Record<string, unknown>;
      runId?: string;
      /** Runs after the run ends and before its stream closes (a chat turn stores its conversation here). */
      onFinished?: (r: RunResult) => Promise<void>;
    },
  ): Promise<{ runId: string; done: Promise<RunResult> }> {
    const runId = opts.runId ?? newId();
    const e: LiveRun = { events: [], persisted: 0, active: true, listeners: new Set() };
    const ctrl = new AbortController();
    let started: { runId: string; done: Promise<RunResult> };
    try {
      started = await startRun(wf, {
        runId,
        appId: opts.appId,
        inputs: opts.inputs,
        sys: opts.sys,
        conversation: opts.conversation,
        services: this.services,
        store: this.o.runs,
        concurrency: this.o.concurrency,
        signal: ctrl.signal,
        onEvent: (ev) => this.push(runId, e, ev),
      });
    } catch (err) {
      logFailure(`run ${runId} was not started: storing its record failed`, err);
      throw err;
    }
    this.live.set(runId, e);
    this.controllers.set(runId, ctrl);
    const finished = opts.onFinished;
    const after = finished
      ? started.done.then(async (r) => {
          await finished(r);
          return r;
        })
      : started.done;
    return { runId, done: this.track(runId, e, after) };
  }

  isActive(runId: string): boolean {
    return this.live.get(runId)?.active ?? false;
  }

  /** Resolves once the run is active again (a stream opened next sees its new events), with `done` for its end. */
  async resume(runId: string, given?: RunContext): Promise<{ done: Promise<RunResult> }> {
    const context = given ?? (await this.o.contextOf?.(runId)) ?? {};
    const e = await this.entry(runId);
    // Checked after loading, with no await until `track` marks it active, so two resumes never both start.
    if (e.active) throw new WeftError("run.active", `run ${runId} is still running`);
    // A run recorded as running elsewhere may be one whose server died: resuming it here is what the user asked.
    e.elsewhere = false;
    const ctrl = new AbortController();
    this.controllers.set(runId, ctrl);
    const p = resumeRun(runId, {
      ...context,
      store: this.o.runs,
      services: this.services,
      concurrency: this.o.concurrency,
      signal: ctrl.signal,
      onEvent: (ev) => this.push(runId, e, ev),
    });
    return { done: this.track(runId, e, p) };
  }

  cancel(runId: string): boolean {
    const c = this.controllers.get(runId);
    c?.abort(new Error("run cancelled by the API"));
    return !!c;
  }

  /** The run's log so far (it grows in place) and whether more may come; `onChange` fires on each new event and at the end. */
  async subscribe(
    runId: string,
    onChange: () => void,
  ): Promise<{ events: () => StampedEvent[]; active: () => boolean; close: () => void }> {
    const e = await this.entry(runId);
    e.listeners.add(onChange);
    return {
      events: () => e.events,
      active: () => e.active || !!e.elsewhere,
      close: () => e.listeners.delete(onChange),
    };
  }

  /** The run's Dify-relevant log so far, read once (blocking answers, run details). */
  async events(runId: string): Promise<StampedEvent[]> {
    return [...(await this.entry(runId)).events];
  }

  /** Wait for every active run to finish (shutdown, tests). */
  async drain(): Promise<void> {
    await Promise.allSettled([...this.live.values()].filter((e) => e.active).map((e) => e.done));
    await this.flush();
  }

  abortAll(): void {
    for (const c of this.controllers.values()) c.abort(new Error("server shutting down"));
  }
}
