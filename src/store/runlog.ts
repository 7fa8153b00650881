import { WeftError } from "../ir/errors.js";
import type { RunRecord } from "./runs.js";

/**
 * Where a run was started: the studio's Run, the /api, Dify's /v1, MCP, a queue worker, a trigger, `weft run`,
 * a run of the app's test cases (`weft tests run`, the Tests tab, a proposal's proof, the publish gate).
 */
export const RUN_SOURCES = ["studio", "api", "v1", "mcp", "queue", "trigger", "cli", "tests"] as const;
export type RunSource = (typeof RUN_SOURCES)[number];

/** Statuses a log filters by: the stored ones, and `cancelled` (a failed run whose error is `run.cancelled`). */
export const RUN_LOG_STATUSES = [
  "succeeded",
  "partial-succeeded",
  "failed",
  "cancelled",
  "paused",
  "running",
  "interrupted",
] as const;
export type RunLogStatus = (typeof RUN_LOG_STATUSES)[number];

export interface RunQuery {
  appId?: string;
  status?: RunLogStatus[];
  source?: RunSource[];
  /** The app version the run ran (draft runs carry the version their draft was made from). */
  version?: number;
  /** Only the runs this trigger started. */
  triggerId?: string;
  /** Created at or after (ms since the epoch). */
  since?: number;
  /** Created before (ms since the epoch). */
  until?: number;
  /** Every word must occur in the run's inputs or outputs (whole words, case-insensitive). */
  search?: string;
  /** Default 20, at most 100. */
  limit?: number;
  /** `next` of the previous page. */
  cursor?: string;
}

/** A run as logs list it: everything but its workflow (only the workflow's name). */
export interface RunLogEntry extends Omit<RunRecord, "workflow"> {
  workflowName: string;
  source?: RunSource;
  version?: number;
  /** A draft run of the studio. */
  draft?: boolean;
  /** The trigger that started it (source `trigger`). */
  triggerId?: string;
}

export interface RunPage {
  runs: RunLogEntry[];
  /** The cursor of the next page; absent on the last one. */
  next?: string;
}

export interface RunTag {
  source: RunSource;
  version?: number;
  draft?: boolean;
  /** The trigger (TriggerStore id) that started the run. */
  triggerId?: string;
}

export interface RetentionPolicy {
  /** Runs older than this many days go. */
  maxAgeDays?: number;
  /** Only this many of each app's newest runs stay. */
  maxRunsPerApp?: number;
}

/**
 * The run log: where each run came from, and queries over every stored run (filters, full-text search, cursor
 * pages, newest first), and retention. Never deletes a running or paused run.
 */
export interface RunLog {
  /** Record where a run came from; written once when the run starts. */
  tag(runId: string, tag: RunTag): Promise<void>;
  query(q: RunQuery): Promise<RunPage>;
  /** How many runs the query's filters match (its limit and cursor aside). */
  count(q: RunQuery): Promise<number>;
  /** Delete what the policy no longer keeps (with its commits, trace, artifacts, events, forms); how many runs went. */
  prune(policy: RetentionPolicy, now?: number): Promise<number>;
}

/** A run query that cannot be answered as asked (a bad cursor, a search with no words, an unknown status…). */
export class RunQueryError extends WeftError {}

export const MAX_PAGE = 100;

export function pageSize(q: RunQuery): number {
  const n = q.limit ?? 20;
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE)
    throw new RunQueryError("runs.invalid_limit", `limit must be an integer from 1 to ${MAX_PAGE}, got ${n}`);
  return n;
}

export interface CursorPos {
  createdAt: number;
  id: string;
}

export const encodeCursor = (r: CursorPos): string =>
  Buffer.from(JSON.stringify([r.createdAt, r.id])).toString("base64url");

export function decodeCursor(c: string): CursorPos {
  try {
    const v = JSON.parse(Buffer.from(c, "base64url").toString("utf8"));
    if (Array.isArray(v) && v.length === 2 && Number.isInteger(v[0]) && typeof v[1] === "string")
      return { createdAt: v[0], id: v[1] };
  } catch {
    // falls through to the typed error
  }
  throw new RunQueryError("runs.invalid_cursor", "the cursor is not one a run list returned; start again without it");
}

/** The words of a search: letters and digits; punctuation separates them. */
export function searchWords(search: string): string[] {
  const words = search.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  if (words.length === 0)
    throw new RunQueryError("runs.invalid_search", `search ${JSON.stringify(search)} has no word to look for`);
  return words.slice(0, 16);
}
