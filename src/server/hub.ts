import { StoredHumanInput } from "../engine/human-input.js";
import { interruptsRun } from "../engine/interrupt.js";
import type { RunObserver } from "../engine/observer.js";
import { type RunEnv, type RunResult, resumeRun, startRun } from "../engine/run.js";
import { WeftError } from "../ir/errors.js";
import type { NodeTypes } from "../ir/registry.js";
import type { ExecServices } from "../ir/services.js";
import { type Workflow, WorkflowSchema } from "../ir/workflow.js";
import type { AppStore, EventBatch } from "../store/apps.js";
import type { FormStore } from "../store/forms.js";
import type { RunEvent } from "../store/run-events.js";
import type { RunRecord, RunStore } from "../store/runs.js";
import { newId } from "../util/ids.js";
import { ApiError } from "./errors.js";
import { LeasedRunStore } from "./leased-store.js";
import { DEFAULT_LEASE, type LeaseOptions, RunLeases } from "./leases.js";

/** A run event as the hub keeps and stores it: stamped with the time it happened (ms since the epoch). */
export type StampedEvent = RunEvent & { at?: number };

/**
 * Called after every run segment ends (finished or paused), before its waiters hear of it, with the context the
 * segment ran with (a listener that only cares about chat turns tells them apart without a read).
 */
export type SegmentListener = (runId: string, result: RunResult, context: RunContext) => Promise<void> | void;

/** A run the hub started: its id, its end, and its record as stored. */
export interface StartedRun {
  runId: string;
  done: Promise<RunResult>;
  run: RunRecord;
}

/** What a run segment needs besides its workflow: the values Dify's service API gives a chat turn. */
export interface RunContext {
  appId?: string;
  sys?: Record<string, unknown>;
  conversation?: Record<string, unknown>;
}

/** Operators see why a run was lost: one line on stderr, or an event of the server's log. */
function logFailure(what: string, err: unknown, hook?: (what: string, err: unknown) => void): void {
  if (hook) {
    hook(what, err);
    return;
  }
  const why =
    err instanceof WeftError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
  process.stderr.write(`weft server: ${what}: ${why}\n`);
}

/** How a run that ended without a result (the engine threw) is recorded: typed, never left `running`. */
function errorOf(err: unknown): { code: string; message: string } {
  if (err instanceof WeftError) return { code: err.code, message: err.message };
  return { code: "run.internal_error", message: err instanceof Error ? err.message : String(err) };
}

const isCode = (err: unknown, code: string) => err instanceof WeftError && err.code === code;

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
  /** Another server took this run over: this copy is stopping and its events are no longer written. */
  fenced?: boolean;
}

export interface RunHubOptions {
  runs: RunStore;
  /** The node types runs execute with; default every node Weft defines. */
  nodeTypes?: NodeTypes;
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
  /** Lease duration and renewal of the runs this server runs (see src/server/leases.ts). */
  lease?: LeaseOptions;
  /** An app's environment values (secrets opened) for each run segment of it; never stored with the run. */
  envOf?: (appId: string) => Promise<RunEnv>;
  /** Observability hook (tracing, metrics) for every run segment. */
  observer?: RunObserver;
  /** Where failures the hub survives go (the server's event log, store error metrics); default one stderr line. */
  onFailure?: (what: string, err: unknown) => void;
}

/**
 * Starts runs in this process and fans their events out to SSE clients from memory. New events are written
 * to the database in batches (every `flushMs`, one transaction for all active runs, so streaming never waits
 * on a disk sync per event) and at the end of each run segment, so a client that connects late, or to a
 * restarted server, still gets the whole log in order.
 */
const describeRun = (id: string | undefined) => (id ? `run ${id}` : "the new run");

export class RunHub {
  private live = new Map<string, LiveRun>();
  private finished: string[] = [];
  private controllers = new Map<string, AbortController>();
  /** Stops a run between nodes without committing a failure (a run taken over elsewhere). */
  private stops = new Map<string, AbortController>();
  private readonly leases: RunLeases;
  /** The run store the engine writes through: runs are created leased to this server, records fenced by it. */
  private readonly store: RunStore;
  private dirty = new Map<string, LiveRun>();
  private flushTimer?: ReturnType<typeof setTimeout>;
  private readonly listeners: SegmentListener[] = [];
  private readonly services: Partial<ExecServices>;
  /** Set by `shutdown`: no run starts or resumes here any more. */
  private closing = false;
  /** Starts and resumes not yet tracked (their record is being written), so `shutdown` waits for them too. */
  private readonly admitting = new Set<Promise<unknown>>();

  constructor(private o: RunHubOptions) {
    // A human-input node pauses the run durably: its form is stored beside the run.
    this.services = { ...o.services, humanInput: new StoredHumanInput(o.forms) };
    this.leases = new RunLeases(o.runs, o.lease ?? DEFAULT_LEASE, {
      takeOver: (runId) => this.takeOver(runId),
      lost: (runId) => this.lost(runId),
      failed: (what, err) => logFailure(what, err, this.o.onFailure),
    });
    this.store = new LeasedRunStore(o.runs, this.leases);
  }

  /** Renew this server's leases and take over runs whose server stopped (at once, then every renewal). */
  startLeases(): void {
    this.leases.start();
  }

  stopLeases(): void {
    this.leases.stop();
  }

  /** This server's lease owner id (logs, tests). */
  get owner(): string {
    return this.leases.owner;
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
        logFailure(`following run ${runId} from the database`, err, this.o.onFailure);
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
    // The server that took the run over writes its log from here on.
    if (e.fenced) return;
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
    if (e.fenced || e.persisted >= e.events.length) return undefined;
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
      logFailure("writing run events", err, this.o.onFailure);
    }
  }

  /** Write every pending event now (one transaction for all runs). */
  async flush(): Promise<void> {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    const batches = [...this.dirty].flatMap(([runId, e]) => this.take(runId, e) ?? []);
    await this.write(batches);
  }

  private track(runId: string, e: LiveRun, p: Promise<RunResult>, context: RunContext): Promise<RunResult> {
    e.active = true;
    const end = async (result?: RunResult, err?: unknown) => {
      // The log is in the database before anyone hears the run ended.
      await this.write([this.take(runId, e)].filter((b) => b !== undefined));
      // Its final record write dropped the lease; one that resumes the run (an answered form) takes a new one.
      if (result) this.leases.drop(runId);
      else if (!e.fenced) await this.unfinished(runId, err);
      if (result) await this.tell(runId, result, context);
      e.active = false;
      this.controllers.delete(runId);
      this.stops.delete(runId);
      for (const l of e.listeners) l();
      // A copy stopped because another server runs the run: the next reader here follows that one.
      if (e.fenced) this.live.delete(runId);
      else this.retire(runId);
    };
    e.done = p.then(
      async (result) => {
        await end(result);
        return result;
      },
      async (err: unknown) => {
        await end(undefined, err);
        throw err;
      },
    );
    // A failing run is reported through its events and record; failing to record it is logged here.
    e.done.catch((err: unknown) => logFailure(`run ${runId} could not be recorded`, err, this.o.onFailure));
    return e.done;
  }

  private async tell(runId: string, result: RunResult, context: RunContext): Promise<void> {
    for (const l of this.listeners) {
      try {
        await l(runId, result, context);
      } catch (err) {
        logFailure(`after run ${runId} ${result.status}`, err, this.o.onFailure);
      }
    }
  }

  /**
   * The engine threw instead of ending the run (its record could not be written, its workflow could not be
   * loaded): the run is failed with a typed error, never left `running`. If the database cannot be reached
   * either, the lease is left to lapse, so a sweeper (this server's or a peer's) tries the run again later.
   */
  private async unfinished(runId: string, err: unknown, knownRunning = false): Promise<void> {
    if (isCode(err, "run.lease_lost")) return;
    if (interruptsRun(err)) return this.leases.drop(runId);
    try {
      if (knownRunning || (await this.o.runs.getRun(runId))?.status === "running")
        await this.o.runs.updateRun(runId, { status: "failed", error: errorOf(err) }, this.leases.owner);
      this.leases.drop(runId);
      logFailure(`run ${runId} failed`, err, this.o.onFailure);
    } catch (x) {
      this.leases.drop(runId);
      logFailure(
        `run ${runId} ended without a result and could not be recorded (retried after its lease lapses)`,
        x,
        this.o.onFailure,
      );
    }
  }

  /** Why a stored run cannot be continued, before anything of it runs again. */
  private async resumable(run: RunRecord): Promise<void> {
    if (run.appId !== undefined && !(await this.o.apps.getApp(run.appId)))
      throw new WeftError("run.app_deleted", `run ${run.id} cannot be continued: its app ${run.appId} was deleted`, {
        runId: run.id,
        appId: run.appId,
      });
    const check = WorkflowSchema.safeParse(run.workflow);
    if (!check.success) {
      const issue = check.error.issues[0];
      throw new WeftError(
        "run.workflow_invalid",
        `run ${run.id} cannot be continued: its stored workflow does not load (${issue?.path.join(".") || "workflow"}: ${issue?.message})`,
        { runId: run.id },
      );
    }
  }

  /** A run this server claimed after its owner's lease expired: resume it here from its commits. */
  private async takeOver(runId: string): Promise<void> {
    // Still running here: this server's own lease had lapsed (a stall) and it claimed the run back.
    if (this.live.get(runId)?.active) return;
    try {
      const run = await this.o.runs.getRun(runId);
      if (run?.status !== "running") return await this.leases.release(runId);
      await this.resumable(run);
      await this.resume(runId, undefined, { claimed: true });
    } catch (err) {
      if (isCode(err, "run.active")) return;
      await this.unfinished(runId, err, true);
    }
  }

  /** Another server claimed a run this one was running (this one stalled past its lease): stop this copy. */
  private lost(runId: string): void {
    const e = this.live.get(runId);
    if (!e?.active) return;
    e.fenced = true;
    const why = new WeftError("run.lease_lost", `run ${runId} was taken over by another server; this copy stops`);
    logFailure(`run ${runId}`, why, this.o.onFailure);
    // Stopped first: the nodes the abort cuts short are not committed as failures, the new owner runs them.
    this.stops.get(runId)?.abort(why);
    this.controllers.get(runId)?.abort(why);
  }

  /**
   * Resolves once the run record is stored, so a 202 with its id means the run exists; rejects otherwise. `run`:
   * the record as stored (callers use it instead of reading it back).
   */
  start(wf: Workflow, opts: Parameters<RunHub["startNow"]>[1]): Promise<StartedRun> {
    return this.admit(describeRun(opts.runId), () => this.startNow(wf, opts));
  }

  private async startNow(
    wf: Workflow,
    opts: RunContext & {
      appId: string;
      inputs: Record<string, unknown>;
      runId?: string;
      /** Runs after the run ends and before its stream closes (a chat turn stores its conversation here). */
      onFinished?: (r: RunResult) => Promise<void>;
    },
  ): Promise<StartedRun> {
    const runId = opts.runId ?? newId();
    const e: LiveRun = { events: [], persisted: 0, active: true, listeners: new Set() };
    const ctrl = new AbortController();
    const stop = new AbortController();
    let started: StartedRun;
    try {
      const env = this.o.envOf ? await this.o.envOf(opts.appId) : undefined;
      started = await startRun(wf, {
        env,
        runId,
        appId: opts.appId,
        inputs: opts.inputs,
        sys: opts.sys,
        conversation: opts.conversation,
        services: this.services,
        store: this.store,
        nodeTypes: this.o.nodeTypes,
        concurrency: this.o.concurrency,
        signal: ctrl.signal,
        stop: stop.signal,
        onEvent: (ev) => this.push(runId, e, ev),
        observer: this.o.observer,
        // Nothing the hub's callers do reads the result's trace: the run's attempts are read when asked for.
        readTrace: false,
      });
    } catch (err) {
      logFailure(`run ${runId} was not started: storing its record failed`, err, this.o.onFailure);
      throw err;
    }
    // Its record was created under this server's lease; renewed from now on.
    this.leases.hold(runId);
    this.live.set(runId, e);
    this.controllers.set(runId, ctrl);
    this.stops.set(runId, stop);
    const finished = opts.onFinished;
    const after = finished
      ? started.done.then(async (r) => {
          await finished(r);
          return r;
        })
      : started.done;
    return { runId, done: this.track(runId, e, after, opts), run: started.run };
  }

  isActive(runId: string): boolean {
    return this.live.get(runId)?.active ?? false;
  }

  /**
   * Resolves once the run is active again (a stream opened next sees its new events), with `done` for its end.
   * The run is taken under this server's lease first: a run another live server holds is refused (`run.active`).
   * `claimed`: the sweeper already holds it.
   */
  resume(runId: string, given?: RunContext, o: { claimed?: boolean } = {}): Promise<{ done: Promise<RunResult> }> {
    return this.admit(describeRun(runId), () => this.resumeNow(runId, given, o));
  }

  private async resumeNow(
    runId: string,
    given: RunContext | undefined,
    o: { claimed?: boolean },
  ): Promise<{ done: Promise<RunResult> }> {
    const context = given ?? (await this.o.contextOf?.(runId)) ?? {};
    // Read before anything is taken: a key that no longer opens the app's secrets fails the resume here.
    const appId = context.appId ?? (this.o.envOf ? (await this.o.runs.getRun(runId))?.appId : undefined);
    const env = appId && this.o.envOf ? await this.o.envOf(appId) : undefined;
    if (!o.claimed && !this.live.get(runId)?.active && !(await this.leases.take(runId)))
      throw new WeftError("run.active", `run ${runId} is running on another server (its lease there is still valid)`);
    let e: LiveRun;
    try {
      e = await this.entry(runId);
      if (e.elsewhere) {
        // Followed from another server until now: read what it wrote since the last look, then continue here.
        e.elsewhere = false;
        const more = await this.o.apps.events(runId, e.events.length - 1);
        // A concurrent resume started it meanwhile: its new events must not be followed by these older ones.
        if (e.active) throw new WeftError("run.active", `run ${runId} is still running`);
        e.events.push(...more);
        e.persisted = e.events.length;
      }
    } catch (err) {
      if (!this.isActive(runId)) this.leases.drop(runId);
      throw err;
    }
    // Checked after loading, with no await until `track` marks it active, so two resumes never both start.
    if (e.active) throw new WeftError("run.active", `run ${runId} is still running`);
    const ctrl = new AbortController();
    const stop = new AbortController();
    this.controllers.set(runId, ctrl);
    this.stops.set(runId, stop);
    const p = resumeRun(runId, {
      ...context,
      env,
      store: this.store,
      services: this.services,
      nodeTypes: this.o.nodeTypes,
      concurrency: this.o.concurrency,
      signal: ctrl.signal,
      stop: stop.signal,
      onEvent: (ev) => this.push(runId, e, ev),
      observer: this.o.observer,
      readTrace: false,
    });
    return { done: this.track(runId, e, p, context) };
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

  /**
   * Runs `f` (a start or resume) unless the hub is shutting down; until `f` settles, `shutdown` waits for it,
   * so a run whose record is being written when the server stops is still stopped and recorded.
   */
  private admit<T>(what: string, f: () => Promise<T>): Promise<T> {
    if (this.closing)
      return Promise.reject(
        new ApiError(503, "server.stopping", `the server is shutting down; ${what} was not started, try again shortly`),
      );
    const p = f();
    this.admitting.add(p);
    const forget = () => this.admitting.delete(p);
    p.then(forget, forget);
    return p;
  }

  /** Wait for every active run to finish (shutdown, tests). */
  async drain(): Promise<void> {
    while (this.admitting.size > 0) await Promise.allSettled([...this.admitting]);
    await Promise.allSettled([...this.live.values()].filter((e) => e.active).map((e) => e.done));
    await this.flush();
  }

  /**
   * Stop for good before the database closes: nothing new starts, runs being started are waited for, and every
   * live run stops between nodes. What finished is committed, each run ends `interrupted` (resumable from its
   * commits, `weft resume`) and its record and log are written before this resolves.
   */
  async shutdown(): Promise<void> {
    this.closing = true;
    while (this.admitting.size > 0) await Promise.allSettled([...this.admitting]);
    for (const s of this.stops.values()) s.abort(new Error("the server is shutting down"));
    await this.drain();
  }
}
