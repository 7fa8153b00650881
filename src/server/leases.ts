import { WeftError } from "../ir/errors.js";
import type { RunStore } from "../store/runs.js";
import { newId } from "../util/ids.js";

/**
 * Ownership of the runs `weft serve` starts (issue 28): the server process running a run holds a lease on it,
 * and renews every lease it holds in one statement every `renewMs`. A server that dies (SIGKILL, crash, lost
 * machine) stops renewing; once its leases expire, a sweeper in any server on the database — a live peer, or
 * the same server restarted — claims each of its runs (one claimant wins, the store decides atomically) and
 * resumes it from its commits.
 *
 * What survives a takeover exactly once: every node commit (the engine starts a node's successors only after
 * its commit is durable, a resumed run never re-runs a committed node, and commits are first-wins, so even two
 * copies of a run never commit a node twice). What does NOT: a node that was executing when its server died
 * has no commit, so the new owner runs it again — side effects of in-flight nodes (HTTP calls, tool calls,
 * model calls) are at-least-once. Events the dead server had not yet written (at most `flushMs` of them) are
 * missing from the run's log; the resumed segment's events follow.
 *
 * A live owner is never robbed while it renews in time: it renews `ttlMs / renewMs` (at least 2) times per
 * lease. One whose event loop or database stalled longer than the lease may find a run taken; it then stops
 * its copy, and its final record write is fenced by the owner id (`updateRun(…, owner)`), so it cannot
 * overwrite the new owner's record. Paused runs (waiting for a human) hold no lease: nothing runs them.
 * Runs with no lease (started by the CLI or queue workers) are never claimed by a server.
 */
export interface LeaseOptions {
  /** How long a lease lasts without renewal (ms): how soon a dead server's runs are taken over. */
  ttlMs: number;
  /** How often a server renews its leases and looks for expired ones (ms); at most half of `ttlMs`. */
  renewMs: number;
}

export const DEFAULT_LEASE: LeaseOptions = { ttlMs: 30_000, renewMs: 10_000 };

/** Runs claimed per statement: one sweep that finds more claims again at once. */
const CLAIM_BATCH = 100;

/** Bad lease settings name the setting and why; they never fall back to a default silently. */
export function checkLeaseOptions(o: LeaseOptions, source = "lease options"): LeaseOptions {
  for (const [name, v] of Object.entries(o))
    if (!Number.isInteger(v) || v < 1)
      throw new WeftError(
        "server.bad_lease",
        `${source}: ${name} must be a whole number of ms of at least 1, not ${v}`,
      );
  if (o.renewMs * 2 > o.ttlMs)
    throw new WeftError(
      "server.bad_lease",
      `${source}: renewing every ${o.renewMs} ms is too slow for a ${o.ttlMs} ms lease; renew at most every ${Math.floor(o.ttlMs / 2)} ms so one late renewal never lets it lapse`,
    );
  return o;
}

/** WEFT_RUN_LEASE_MS and WEFT_RUN_LEASE_RENEW_MS override the defaults (tests use short leases). */
export function leaseOptionsFromEnv(env: NodeJS.ProcessEnv = process.env): LeaseOptions {
  const read = (name: string, fallback: number) => {
    const raw = env[name];
    if (raw === undefined || raw === "") return fallback;
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n))
      throw new WeftError("server.bad_lease", `${name} must be a whole number of milliseconds, not "${raw}"`);
    return n;
  };
  return checkLeaseOptions(
    {
      ttlMs: read("WEFT_RUN_LEASE_MS", DEFAULT_LEASE.ttlMs),
      renewMs: read("WEFT_RUN_LEASE_RENEW_MS", DEFAULT_LEASE.renewMs),
    },
    "WEFT_RUN_LEASE_MS / WEFT_RUN_LEASE_RENEW_MS",
  );
}

export interface LeaseHandlers {
  /** A run this process claimed because its owner's lease expired: continue it here. */
  takeOver(runId: string): Promise<void>;
  /** A run this process held was claimed by another server: stop this copy. */
  lost(runId: string): void;
  /** A renewal or sweep failed (the database is unreachable); retried on the next tick. */
  failed(what: string, err: unknown): void;
}

/** The leases one server process holds, their renewal, and the sweep for expired ones. */
export class RunLeases {
  /** Unique per process: a restarted server is a new owner and claims its predecessor's runs like any peer. */
  readonly owner = `server-${newId()}`;
  private readonly held = new Set<string>();
  private timer?: ReturnType<typeof setTimeout>;
  private stopped = true;

  constructor(
    private readonly runs: RunStore,
    readonly options: LeaseOptions,
    private readonly handlers: LeaseHandlers,
  ) {
    checkLeaseOptions(options);
  }

  get request() {
    return { owner: this.owner, ttlMs: this.options.ttlMs };
  }

  /** Renew this run's lease from now on (it was created or claimed with this owner's lease). */
  hold(runId: string): void {
    this.held.add(runId);
  }

  holds(runId: string): boolean {
    return this.held.has(runId);
  }

  /** Take one run (a resume asked for here); false while another server's lease on it is valid. */
  async take(runId: string): Promise<boolean> {
    const taken = await this.runs.takeRun(runId, this.request);
    if (taken) this.held.add(runId);
    return taken;
  }

  /** Drop this server's lease on a run it will not run (one that ended before it could be continued). */
  async release(runId: string): Promise<void> {
    this.held.delete(runId);
    await this.runs.releaseRun(runId, this.owner);
  }

  /**
   * Stop renewing: the run's segment ended (its final record write dropped the lease), or it could not be
   * recorded, and then the lease lapses and a sweeper (maybe this one) tries the run again.
   */
  drop(runId: string): void {
    this.held.delete(runId);
  }

  /** Claim expired runs now (a restarted server continues its own), then renew and sweep every `renewMs`. */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    void this.sweep().finally(() => this.schedule());
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(async () => {
      await this.renew();
      await this.sweep();
      this.schedule();
    }, this.options.renewMs);
    this.timer.unref?.();
  }

  private async renew(): Promise<void> {
    // Only runs held before the statement can be missing from its answer; later ones are not lost.
    const before = [...this.held];
    if (before.length === 0) return;
    try {
      const still = new Set(await this.runs.renewLeases(this.request));
      for (const id of before) if (!still.has(id) && this.held.has(id)) await this.missing(id);
    } catch (err) {
      this.handlers.failed("renewing run leases", err);
    }
  }

  /**
   * A held run the renewal did not find: its segment ended here (the final record write dropped the lease just
   * before the run left `held`), or another server claimed it.
   */
  private async missing(runId: string): Promise<void> {
    const run = await this.runs.getRun(runId);
    if (!this.held.has(runId)) return;
    this.held.delete(runId);
    if (run?.status === "running" && run.lease?.owner !== this.owner) this.handlers.lost(runId);
  }

  private async sweep(): Promise<void> {
    try {
      for (;;) {
        if (this.stopped) return;
        const ids = await this.runs.claimExpiredRuns(this.request, CLAIM_BATCH);
        for (const id of ids) {
          this.held.add(id);
          void this.handlers.takeOver(id);
        }
        if (ids.length < CLAIM_BATCH) return;
      }
    } catch (err) {
      this.handlers.failed("claiming runs whose server stopped", err);
    }
  }
}
