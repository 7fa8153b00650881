import {
  decodeCursor,
  encodeCursor,
  pageSize,
  type RetentionPolicy,
  type RunLog,
  type RunPage,
  type RunQuery,
  type RunTag,
  searchWords,
} from "../runlog.js";
import { entryOf, logStatus } from "../runlog-filter.js";
import type { RunRecord } from "../runs.js";
import type { MemoryRunStore } from "./runs.js";

const words = (v: unknown) =>
  new Set(
    JSON.stringify(v ?? "")
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? [],
  );
const newestFirst = (a: RunRecord, b: RunRecord) =>
  b.createdAt - a.createdAt || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

/** The run log over the in-process run store; same contract as the SQL ones. */
export class MemoryRunLog implements RunLog {
  private tags = new Map<string, RunTag>();
  constructor(private readonly runs: MemoryRunStore) {}

  async tag(runId: string, t: RunTag): Promise<void> {
    this.tags.set(runId, structuredClone(t));
  }

  async count(q: RunQuery): Promise<number> {
    return (await this.matching({ ...q, cursor: undefined })).length;
  }

  async query(q: RunQuery): Promise<RunPage> {
    const limit = pageSize(q);
    const hits = await this.matching(q);
    const runs = hits.slice(0, limit).map((r) => entryOf(r, this.tags.get(r.id)));
    const last = runs.at(-1);
    return { runs, ...(hits.length > limit && last ? { next: encodeCursor(last) } : {}) };
  }

  private async matching(q: RunQuery): Promise<RunRecord[]> {
    const wanted = q.search !== undefined ? searchWords(q.search) : undefined;
    const c = q.cursor !== undefined ? decodeCursor(q.cursor) : undefined;
    const all = (await this.runs.listRuns({ limit: Number.POSITIVE_INFINITY })).sort(newestFirst);
    return all.filter((r) => {
      const t = this.tags.get(r.id);
      if (q.appId !== undefined && r.appId !== q.appId) return false;
      if (q.status?.length && !q.status.includes(logStatus(r))) return false;
      if (q.source?.length && (!t || !q.source.includes(t.source))) return false;
      if (q.version !== undefined && t?.version !== q.version) return false;
      if (q.triggerId !== undefined && t?.triggerId !== q.triggerId) return false;
      if (q.since !== undefined && r.createdAt < q.since) return false;
      if (q.until !== undefined && r.createdAt >= q.until) return false;
      if (c && !(r.createdAt < c.createdAt || (r.createdAt === c.createdAt && r.id < c.id))) return false;
      if (wanted) {
        const have = new Set([...words(r.inputs), ...words(r.outputs)]);
        if (!wanted.every((w) => have.has(w))) return false;
      }
      return true;
    });
  }

  async prune(policy: RetentionPolicy, now = Date.now()): Promise<number> {
    const all = (await this.runs.listRuns({ limit: Number.POSITIVE_INFINITY })).sort(newestFirst);
    const kept = (r: RunRecord) => r.status === "running" || r.status === "paused";
    const doomed = new Set<string>();
    if (policy.maxAgeDays !== undefined)
      for (const r of all) if (r.createdAt < now - policy.maxAgeDays * 86_400_000 && !kept(r)) doomed.add(r.id);
    if (policy.maxRunsPerApp !== undefined) {
      const seen = new Map<string, number>();
      for (const r of all) {
        if (r.appId === undefined) continue;
        const n = (seen.get(r.appId) ?? 0) + 1;
        seen.set(r.appId, n);
        if (n > policy.maxRunsPerApp && !kept(r)) doomed.add(r.id);
      }
    }
    this.runs.forget([...doomed]);
    for (const id of doomed) this.tags.delete(id);
    return doomed.size;
  }
}
