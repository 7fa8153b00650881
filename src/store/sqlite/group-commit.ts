import { closeSync, fdatasync, fstatSync, openSync } from "node:fs";
import type Database from "better-sqlite3";
import { Checkpointer } from "./checkpointer.js";

/** How the group's durable sync is made (tests pass one that stops between a group's write and its sync). */
export type SyncFile = (fd: number) => Promise<void>;

const fdatasyncAsync: SyncFile = (fd) =>
  new Promise((resolve, reject) => fdatasync(fd, (e) => (e ? reject(e) : resolve())));

export interface GroupCommitOptions {
  sync?: SyncFile;
  /** WAL size (bytes) past which a group ends with a checkpoint (SQLite's own default is 1000 pages). */
  checkpointBytes?: number;
}

interface Pending {
  write: () => unknown;
  resolve: (v: unknown) => void;
  reject: (e: unknown) => void;
}

type Result = { ok: true; value: unknown } | { ok: false; error: unknown };

/** A group written to the WAL and waiting for a sync that starts after its write. */
interface Written {
  group: Pending[];
  results: Result[];
}

/**
 * Group commit for one SQLite connection. Writes queued together run as one transaction (each in a savepoint of
 * its own, so one failing write fails alone); then one fdatasync of the WAL, on libuv's thread pool, makes the
 * whole group durable, and only then does any of them resolve.
 *
 * A write with no company goes at once: when no sync is under way and the last group held one write (one run
 * committing alone), its group is written on process.nextTick, once the promise callbacks under way have run
 * (writes they make join it), and its sync starts right after, with no turn of the event loop in between.
 * When groups have company, the group waits for the turn of the loop, gathering the writes of every run whose
 * callbacks run in it (going at once there split each wave of commits into more groups: 1.7 to 2.1 syncs per
 * request at 16 clients instead of 1.3 to 1.5, measured). While a sync is under way, the writes that arrive are
 * written at the next turn of the loop (overlapping the sync); the groups written meanwhile share the one sync
 * that starts at the turn of the loop after the running one ends, with the writes of the runs it released.
 *
 * Durability is the same as synchronous=FULL for what resolves: SQLite writes the group's WAL frames with
 * synchronous=OFF (no sync inside the transaction) and the fdatasync that follows makes them durable before
 * the caller hears of them. Checkpoints never run with synchronous=OFF (auto-checkpoint is off during the
 * group): a sync that leaves the WAL large is followed by a checkpoint under FULL on a thread of its own
 * (checkpointer.ts), which syncs the database file before the WAL is reused. A write that has not resolved may be visible to readers and may survive a crash;
 * one that resolved survives a crash and a power loss.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  /** Whether the last group held a single write: the next write then goes without waiting for company. */
  private lonely = true;
  private fd: number | undefined;
  /** Groups written since the running sync started: the next sync covers them. */
  private written: Written[] = [];
  /** The sync under way (at most one). */
  private running: Promise<void> | undefined;
  /** The checkpoint under way on its own thread: groups wait for it (the event loop does not). */
  private checkpointing: Promise<void> | undefined;
  private checkpointer: Checkpointer | undefined;
  private closed = false;
  /** The connection's own synchronous level (FULL = 2 and up: every commit durable when it resolves). */
  private readonly level: number;
  private readonly full: boolean;
  private readonly sync: SyncFile;
  private readonly checkpointBytes: number;
  /**
   * The group's transaction and each write's, made once: better-sqlite3 builds four wrapped variants of a function
   * per `db.transaction()` call (and guardDatabase wraps them again), which made per group and per write was
   * about 17 µs of a lone commit's main-thread CPU, measured (a /v1 request commits 8 to 9 times).
   */
  private readonly groupTx: (group: Pending[], results: Result[]) => void;
  private readonly oneTx: (write: () => unknown) => unknown;
  /** The pragmas each group sets and restores, prepared once (preparing them was a tenth of a group's CPU). */
  private readonly pragmas: Record<"autoOff" | "autoOn" | "syncOff" | "syncOn", Database.Statement>;
  /** Durable syncs made (benchmarks count them per request). */
  syncs = 0;
  /** Checkpoints the groups ended with (each syncs the WAL and the database file, on a thread of its own). */
  checkpoints = 0;

  constructor(
    private readonly db: Database.Database,
    o: GroupCommitOptions = {},
  ) {
    this.level = Number(db.pragma("synchronous", { simple: true }));
    this.full = this.level >= 2;
    this.sync = o.sync ?? fdatasyncAsync;
    this.checkpointBytes = o.checkpointBytes ?? 4_000_000;
    this.oneTx = db.transaction((write: () => unknown) => write());
    this.groupTx = db.transaction((group: Pending[], results: Result[]) => {
      for (const p of group) {
        try {
          // Inside the group's transaction: a savepoint of its own.
          results.push({ ok: true, value: this.oneTx(p.write) });
        } catch (error) {
          // On some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM) SQLite ends the whole transaction itself:
          // the group's earlier writes are gone too, and the rest must not run outside a transaction. The
          // group fails with this write's error, not with COMMIT's "no transaction is active".
          if (!db.inTransaction) throw error;
          results.push({ ok: false, error });
        }
      }
    });
    this.pragmas = {
      autoOff: db.prepare("PRAGMA wal_autocheckpoint = 0"),
      autoOn: db.prepare("PRAGMA wal_autocheckpoint = 1000"),
      syncOff: db.prepare("PRAGMA synchronous = OFF"),
      syncOn: db.prepare(`PRAGMA synchronous = ${this.level}`),
    };
    // The WAL file keeps its size when a checkpoint lets SQLite write it again from the start, so its size
    // alone would call for a checkpoint after every group once it had once grown past the mark (1.8 extra
    // syncs per /v1 request, measured). SQLite cuts it back to this size on the first commit after a
    // checkpoint, so a file larger than the mark holds more than the mark of frames not yet checkpointed.
    if (!db.memory && db.name !== "") db.pragma(`journal_size_limit = ${this.checkpointBytes}`);
  }

  /** Run `write` in the next group; resolves with its result once the group is durable. */
  write<T>(write: () => T): Promise<T> {
    if (this.closed) return Promise.resolve().then(write);
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ write, resolve: resolve as (v: unknown) => void, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // Alone: at once, after the promise callbacks under way (theirs join). Otherwise the next turn of the loop,
      // so the writes of other runs' callbacks in this turn join the group.
      if (this.lonely && !this.running && !this.checkpointing) process.nextTick(() => this.flush());
      else setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    // During a checkpoint the queue waits: the checkpoint's end writes it (see checkpointIfLarge).
    if (this.checkpointing) return;
    if (this.queue.length > 0) this.writeQueue();
    // One sync for what was written during the last one and the group just written (see afterSync).
    if (this.written.length > 0 && !this.running) this.startSync();
  }

  private writeQueue(): void {
    const group = this.queue;
    this.queue = [];
    this.lonely = group.length === 1;
    const results = this.writeGroup(group);
    if (!results) return;
    if (!this.full || this.walFd() === undefined) {
      // Not FULL (the connection promised less), or no WAL (FULL synced the journal inside the transaction).
      this.settle([{ group, results }]);
      return;
    }
    this.written.push({ group, results });
  }

  /** One sync for every group written so far; when it ends, what queued meanwhile is written and synced next. */
  private startSync(): void {
    const batch = this.written;
    this.written = [];
    this.syncs++;
    const run = this.sync(this.fd!);
    this.running = run;
    run.then(
      () => {
        this.running = undefined;
        this.settle(batch);
        if (!this.checkpointIfLarge()) this.afterSync();
      },
      (e: unknown) => {
        this.running = undefined;
        for (const w of batch) for (const p of w.group) p.reject(e);
        this.afterSync();
      },
    );
  }

  private afterSync(): void {
    if (this.checkpointing) return;
    // What was written or queued during the sync waits for the turn of the loop: the callbacks of the batch just
    // settled run before it and add their writes, which are written then and share one sync with the groups
    // written during this one. Syncing those groups at once put the writes of the settled batch on the sync
    // after (writing the queue here at once started a sync for a few writes just before each wave): a run that
    // joined late (a queue worker's next job, one Redis round trip after its last) then kept its own phase,
    // every one of its writes a group and a sync of its own (1.4 syncs per queued run against 0.75, measured).
    if ((this.written.length > 0 || this.queue.length > 0) && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  private settle(batch: Written[]): void {
    for (const { group, results } of batch)
      group.forEach((p, i) => {
        const r = results[i]!;
        if (r.ok) p.resolve(r.value);
        else p.reject(r.error);
      });
  }

  /**
   * One transaction for the group, each write in its own savepoint; undefined if the transaction failed. A lone
   * write is the transaction itself (no savepoint: its failure rolls back what only it wrote, the same outcome).
   */
  private writeGroup(group: Pending[]): Result[] | undefined {
    const results: Result[] = [];
    this.pragmas.autoOff.get();
    if (this.full) this.pragmas.syncOff.run();
    try {
      if (group.length === 1) {
        try {
          results.push({ ok: true, value: this.oneTx(group[0]!.write) });
        } catch (error) {
          results.push({ ok: false, error });
        }
      } else this.groupTx(group, results);
      return results;
    } catch (e) {
      for (const p of group) p.reject(e);
      return undefined;
    } finally {
      if (this.full) this.pragmas.syncOn.run();
      this.pragmas.autoOn.get();
    }
  }

  /** The WAL file, opened once it exists (a database that was never written has none yet). */
  private walFd(): number | undefined {
    if (this.fd !== undefined) return this.fd;
    const name = this.db.name;
    if (this.db.memory || name === "") return undefined;
    try {
      this.fd = openSync(`${name}-wal`, "r");
    } catch {
      // No WAL (the file's journal mode is not WAL): FULL synced the journal inside the transaction already.
      return undefined;
    }
    return this.fd;
  }

  /**
   * A WAL past the mark is checkpointed on the checkpointer's thread (a second connection, under the connection's
   * own synchronous level, so the database file is synced before the WAL is written over). The next group waits
   * for it: with no frames appended meanwhile the checkpoint copies the whole WAL, and the next write starts the
   * WAL over from the beginning (under load a writer that kept appending would starve it, and the WAL would
   * grow). Returns whether a checkpoint started.
   */
  private checkpointIfLarge(): boolean {
    if (this.fd === undefined || !this.db.open) return false;
    const size = fstatSync(this.fd).size;
    if (size <= this.checkpointBytes / 2) return false;
    this.checkpointer ??= new Checkpointer(this.db.name, this.level);
    if (size <= this.checkpointBytes) {
      this.checkpointer.prepare();
      return false;
    }
    this.checkpoints++;
    this.checkpointing = this.checkpointer.run().then(() => {
      this.checkpointing = undefined;
      this.afterSync();
    });
    return true;
  }

  /** Wait for every queued write and its sync; later writes run at once (the connection is about to close). */
  async close(): Promise<void> {
    while (this.queue.length > 0 || this.scheduled || this.running || this.checkpointing || this.written.length > 0) {
      await new Promise((r) => setImmediate(r));
      if (this.running) await this.running.catch(() => {});
      await this.checkpointing;
    }
    this.closed = true;
    await this.checkpointer?.close();
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
