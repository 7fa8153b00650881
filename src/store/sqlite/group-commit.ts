import { closeSync, fdatasync, fstatSync, openSync } from "node:fs";
import type Database from "better-sqlite3";

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

/**
 * Group commit for one SQLite connection. Writes queued in the same turn of the event loop run as one
 * transaction (each in a savepoint of its own, so one failing write fails alone); then one fdatasync of the
 * WAL, on libuv's thread pool, makes the whole group durable, and only then does any of them resolve. While a
 * sync is under way the next group is already written; it waits for the sync that starts after it.
 *
 * Durability is the same as synchronous=FULL for what resolves: SQLite writes the group's WAL frames with
 * synchronous=OFF (no sync inside the transaction) and the fdatasync that follows makes them durable before
 * the caller hears of them. Checkpoints never run with synchronous=OFF (auto-checkpoint is off during the
 * group): a group that leaves the WAL large ends with a checkpoint under FULL, which syncs the database file
 * before the WAL is reused. A write that has not resolved may be visible to readers and may survive a crash;
 * one that resolved survives a crash and a power loss.
 */
export class GroupCommit {
  private queue: Pending[] = [];
  private scheduled = false;
  private fd: number | undefined;
  /** The sync under way, and the one that will start after it (joined by every group written meanwhile). */
  private running: Promise<void> | undefined;
  private next: { promise: Promise<void>; start: () => void } | undefined;
  private closed = false;
  /** The connection's own synchronous level (FULL = 2 and up: every commit durable when it resolves). */
  private readonly level: number;
  private readonly full: boolean;
  private readonly sync: SyncFile;
  private readonly checkpointBytes: number;
  /** Durable syncs made (benchmarks count them per request). */
  syncs = 0;
  /** Checkpoints the groups ended with (each syncs the WAL and the database file on the event loop). */
  checkpoints = 0;

  constructor(
    private readonly db: Database.Database,
    o: GroupCommitOptions = {},
  ) {
    this.level = Number(db.pragma("synchronous", { simple: true }));
    this.full = this.level >= 2;
    this.sync = o.sync ?? fdatasyncAsync;
    this.checkpointBytes = o.checkpointBytes ?? 4_000_000;
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
      if (!this.scheduled) {
        this.scheduled = true;
        // setImmediate, not a microtask: the commits that other runs make in this turn of the loop join the group.
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const group = this.queue;
    this.queue = [];
    const results = this.writeGroup(group);
    if (!results) return;
    const fd = this.walFd();
    const durable = this.full && fd !== undefined ? this.syncAfter() : Promise.resolve();
    durable.then(
      () => {
        this.checkpointIfLarge();
        group.forEach((p, i) => {
          const r = results[i]!;
          if (r.ok) p.resolve(r.value);
          else p.reject(r.error);
        });
      },
      (e: unknown) => {
        for (const p of group) p.reject(e);
      },
    );
  }

  /** One transaction for the group, each write in its own savepoint; undefined if the transaction failed. */
  private writeGroup(
    group: Pending[],
  ): Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> | undefined {
    const results: Array<{ ok: true; value: unknown } | { ok: false; error: unknown }> = [];
    const db = this.db;
    db.pragma("wal_autocheckpoint = 0");
    if (this.full) db.pragma("synchronous = OFF");
    try {
      db.transaction(() => {
        for (const p of group) {
          try {
            results.push({ ok: true, value: db.transaction(p.write)() });
          } catch (error) {
            // On some errors (SQLITE_FULL, SQLITE_IOERR, SQLITE_NOMEM) SQLite ends the whole transaction itself:
            // the group's earlier writes are gone too, and the rest must not run outside a transaction. The
            // group fails with this write's error, not with COMMIT's "no transaction is active".
            if (!db.inTransaction) throw error;
            results.push({ ok: false, error });
          }
        }
      })();
      return results;
    } catch (e) {
      for (const p of group) p.reject(e);
      return undefined;
    } finally {
      if (this.full) db.pragma(`synchronous = ${this.level}`);
      db.pragma("wal_autocheckpoint = 1000");
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

  /** A promise for a sync that starts after now: the running one covers only what was written before it began. */
  private syncAfter(): Promise<void> {
    if (!this.running) return this.startSync();
    if (!this.next) {
      let start!: () => void;
      const promise = new Promise<void>((resolve, reject) => {
        start = () => this.startSync().then(resolve, reject);
      });
      this.next = { promise, start };
    }
    return this.next.promise;
  }

  private startSync(): Promise<void> {
    const fd = this.fd!;
    this.syncs++;
    const run = this.sync(fd);
    this.running = run;
    const after = () => {
      this.running = undefined;
      const next = this.next;
      this.next = undefined;
      next?.start();
    };
    run.then(after, after);
    return run;
  }

  private checkpointIfLarge(): void {
    if (this.fd === undefined || !this.db.open || fstatSync(this.fd).size <= this.checkpointBytes) return;
    // Under the connection's own level (FULL: the database file is synced before the WAL is written over).
    this.checkpoints++;
    this.db.pragma("wal_checkpoint(PASSIVE)");
  }

  /** Wait for every queued write and its sync; later writes run at once (the connection is about to close). */
  async close(): Promise<void> {
    while (this.queue.length > 0 || this.scheduled || this.running || this.next) {
      await new Promise((r) => setImmediate(r));
      if (this.running) await this.running.catch(() => {});
    }
    this.closed = true;
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
  }
}
