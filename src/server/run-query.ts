/**
 * Run-log queries from the outside (API query strings, CLI flags), read strictly: an unknown status or source,
 * a bad time or duration is a typed error naming the value, never silently dropped.
 */
import {
  RUN_LOG_STATUSES,
  RUN_SOURCES,
  type RunLogEntry,
  type RunLogStatus,
  type RunQuery,
  RunQueryError,
  type RunSource,
} from "../store/runlog.js";

const UNITS: Record<string, number> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** `30m`, `24h`, `7d`, `2w`: how far back from `now`. */
export function parseDuration(raw: string, flag = "since"): number {
  const m = /^(\d+)\s*([smhdw])$/.exec(raw.trim());
  if (!m)
    throw new RunQueryError(
      "runs.invalid_duration",
      `${flag} must be a duration such as 30m, 24h, 7d or 2w, got ${JSON.stringify(raw)}`,
    );
  return Number(m[1]) * UNITS[m[2]!]!;
}

/** A point in time: a duration back from now, an ISO 8601 time, or milliseconds since the epoch. */
export function parseTime(raw: string, flag: string, now = Date.now()): number {
  if (/^\d+\s*[smhdw]$/.test(raw.trim())) return now - parseDuration(raw, flag);
  if (/^\d{10,}$/.test(raw)) return Number(raw);
  const t = Date.parse(raw);
  if (Number.isNaN(t))
    throw new RunQueryError(
      "runs.invalid_time",
      `${flag} must be a duration (24h), an ISO time or epoch milliseconds, got ${JSON.stringify(raw)}`,
    );
  return t;
}

function oneOf<T extends string>(raw: string, allowed: readonly T[], what: string): T[] {
  const values = raw
    .split(",")
    .map((v) => v.trim())
    .filter(Boolean);
  for (const v of values)
    if (!allowed.includes(v as T))
      throw new RunQueryError(
        `runs.invalid_${what}`,
        `unknown ${what} ${JSON.stringify(v)}; one of ${allowed.join(", ")}`,
      );
  return values as T[];
}

export interface RunQueryParams {
  app?: string;
  status?: string;
  source?: string;
  version?: string;
  since?: string;
  until?: string;
  search?: string;
  limit?: string;
  cursor?: string;
}

export function parseRunQuery(p: RunQueryParams, now = Date.now()): RunQuery {
  const q: RunQuery = {};
  if (p.app) q.appId = p.app;
  if (p.status) q.status = oneOf<RunLogStatus>(p.status, RUN_LOG_STATUSES, "status");
  if (p.source) q.source = oneOf<RunSource>(p.source, RUN_SOURCES, "source");
  if (p.version !== undefined) {
    const v = Number(p.version);
    if (!Number.isInteger(v) || v < 1)
      throw new RunQueryError(
        "runs.invalid_version",
        `version must be a positive integer, got ${JSON.stringify(p.version)}`,
      );
    q.version = v;
  }
  if (p.since) q.since = parseTime(p.since, "since", now);
  if (p.until) q.until = parseTime(p.until, "until", now);
  if (p.search !== undefined && p.search !== "") q.search = p.search;
  if (p.limit !== undefined) q.limit = Number(p.limit);
  if (p.cursor) q.cursor = p.cursor;
  return q;
}

/** Where the studio shows a run: `/apps/:appId/runs/:runId` (runs of no app have no page). */
export const runLink = (r: Pick<RunLogEntry, "id" | "appId">): string | undefined =>
  r.appId ? `/apps/${encodeURIComponent(r.appId)}/runs/${encodeURIComponent(r.id)}` : undefined;
