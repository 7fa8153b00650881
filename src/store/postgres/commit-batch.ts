import type { AttemptRecord, NodeCommit } from "../runs.js";
import type { PgDatabase } from "./database.js";
import { toJson } from "./json.js";

/** One node commit waiting for its batch; resolves with whether this commit won its key. */
export interface QueuedCommit {
  runId: string;
  commit: NodeCommit;
  attempt?: AttemptRecord;
  createdAt: number;
}

interface Waiting extends QueuedCommit {
  resolve: (won: boolean) => void;
  reject: (e: unknown) => void;
}

/** Commits one node on its own (the single-commit statement); resolves with whether it won its key. */
export type CommitOne = (q: QueuedCommit) => Promise<boolean>;

/**
 * Several node commits in one statement, so one transaction and one durable sync on the server. The rules are
 * the single commit's: a commit row goes in unless its key is taken, and only a winning commit moves its
 * outputs' version counters. Head rows are locked in one global order (run, node, name), so two batches in
 * flight at once cannot deadlock on them. A batch holds at most one commit per (run, node): PostgreSQL lets a
 * statement's upsert touch a head row once.
 */
const BATCH_SQL = `
WITH cin AS (
  SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[], $5::text[], $6::json[], $7::text[],
                       $8::json[], $9::bigint[])
    AS t(i, run_id, key, node_id, status, outputs, port, writes, created_at)),
c AS (
  INSERT INTO node_commits (run_id, key, node_id, status, outputs, port, writes, created_at)
  SELECT run_id, key, node_id, status, outputs, port, writes, created_at FROM cin ORDER BY i
  ON CONFLICT (run_id, key) DO NOTHING
  RETURNING run_id, key, seq),
w AS (
  SELECT cin.run_id, cin.key, cin.node_id, cin.created_at, c.seq, o.name, o.value, o.ord
  FROM unnest($10::int[], $11::text[], $12::json[], $13::int[]) AS o(i, name, value, ord)
  JOIN cin USING (i) JOIN c USING (run_id, key)),
h AS (
  INSERT INTO artifact_heads AS head (run_id, node_id, name, version)
  SELECT run_id, node_id, name, 1 FROM w ORDER BY run_id, node_id, name
  ON CONFLICT (run_id, node_id, name) DO UPDATE SET version = head.version + 1
  RETURNING run_id, node_id, name, version),
a AS (
  INSERT INTO artifacts (run_id, node_id, name, version, key, value, created_at, commit_seq, ord)
  SELECT w.run_id, w.node_id, w.name, h.version, w.key, w.value, w.created_at, w.seq, w.ord
  FROM w JOIN h USING (run_id, node_id, name)),
-- Attempt trace records ride in the same transaction, whether or not their commit won.
t AS (
  INSERT INTO attempts (run_id, key, node_id, record)
  SELECT * FROM unnest($14::text[], $15::text[], $16::text[], $17::json[]))
SELECT run_id, key FROM c`;

/** The most commits one statement carries (its parameter arrays stay small enough to build and parse fast). */
const MAX_BATCH = 256;

/**
 * Group commit for the PostgreSQL run store. Each commit costs the server a WAL flush and the Node process a
 * round trip (measured: a third of the server's main-thread time under load went to writing statements), so
 * commits of concurrent runs share statements: while `maxInFlight` statements are under way, new commits
 * queue, and the next statement carries every one queued. With no load a commit goes out at once, alone, as
 * before. A commit resolves only when its statement has committed, so durability is the single commit's.
 */
export class CommitBatcher {
  private queue: Waiting[] = [];
  private inFlight = 0;
  /** Statements sent and commits they carried (benchmarks report commits per statement). */
  statements = 0;
  commits = 0;

  constructor(
    private readonly db: PgDatabase,
    private readonly one: CommitOne,
    private readonly maxInFlight: number,
  ) {}

  commit(q: QueuedCommit): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ ...q, resolve, reject });
      this.pump();
    });
  }

  private pump(): void {
    while (this.inFlight < this.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      this.inFlight++;
      this.statements++;
      this.commits += batch.length;
      void this.send(batch).finally(() => {
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** The queue's oldest commits, one per (run, node); the rest keep their places for the next statement. */
  private take(): Waiting[] {
    const batch: Waiting[] = [];
    const rest: Waiting[] = [];
    const nodes = new Set<string>();
    for (const w of this.queue) {
      const node = `${w.runId}\u0000${w.commit.nodeId}`;
      if (batch.length < MAX_BATCH && !nodes.has(node)) {
        nodes.add(node);
        batch.push(w);
      } else rest.push(w);
    }
    this.queue = rest;
    return batch;
  }

  private async send(batch: Waiting[]): Promise<void> {
    if (batch.length === 1) return settle(batch[0]!, () => this.one(batch[0]!));
    let won: Set<string>;
    try {
      won = await this.many(batch);
    } catch {
      // One bad commit (or a lost connection) fails the whole statement and nothing of it is committed: each
      // commit then goes alone, so it fails (or succeeds) on its own.
      await Promise.all(batch.map((w) => settle(w, () => this.one(w))));
      return;
    }
    for (const w of batch) w.resolve(won.has(`${w.runId}\u0000${w.commit.key}`));
  }

  private async many(batch: Waiting[]): Promise<Set<string>> {
    const rows = await this.db.query<{ run_id: string; key: string }>(
      BATCH_SQL,
      batchParams(batch),
      "weft_commit_batch",
    );
    return new Set(rows.map((r) => `${r.run_id}\u0000${r.key}`));
  }
}

async function settle(w: Waiting, f: () => Promise<boolean>): Promise<void> {
  try {
    w.resolve(await f());
  } catch (e) {
    w.reject(e);
  }
}

/** The batch as column arrays, one array per column (unnest turns them back into rows). */
function batchParams(batch: QueuedCommit[]): unknown[] {
  const commits = batch.map((q, i) => [
    i,
    q.runId,
    q.commit.key,
    q.commit.nodeId,
    q.commit.status,
    JSON.stringify(q.commit.outputs),
    q.commit.port ?? null,
    toJson(q.commit.writes),
    q.createdAt,
  ]);
  const outputs = batch.flatMap((q, i) =>
    Object.entries(q.commit.outputs).map(([name, value], ord) => [i, name, toJson(value), ord + 1]),
  );
  const attempts = batch.flatMap((q) =>
    q.attempt ? [[q.runId, q.attempt.key, q.attempt.nodeId, JSON.stringify(q.attempt)]] : [],
  );
  return [...columns(commits, 9), ...columns(outputs, 4), ...columns(attempts, 4)];
}

function columns(rows: unknown[][], width: number): unknown[][] {
  return Array.from({ length: width }, (_, c) => rows.map((r) => r[c]));
}
