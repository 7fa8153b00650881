import { Hono } from "hono";
import type { RunLogEntry, RunLogStatus, RunQuery } from "../../store/runlog.js";
import type { ServerDeps } from "../context.js";
import { parseTime } from "../run-query.js";
import type { V1Env } from "./env.js";
import { badParam } from "./errors.js";

// Dify's names for run states: a cancelled run is "stopped".
const DIFY_STATUS: Record<string, RunLogStatus> = {
  succeeded: "succeeded",
  failed: "failed",
  stopped: "cancelled",
  running: "running",
  paused: "paused",
};
const difyStatus = (r: RunLogEntry) =>
  r.status === "failed" && r.error?.code === "run.cancelled" ? "stopped" : r.status;

function intParam(raw: string | undefined, name: string, dflt: number, max: number): number {
  if (raw === undefined) return dflt;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > max) throw badParam(`${name} must be an integer from 1 to ${max}`);
  return n;
}

/** `GET /v1/workflows/logs`: the key's app's runs, newest first, in Dify's page shape. */
export function logRoutes(deps: ServerDeps): Hono<V1Env> {
  const r = new Hono<V1Env>();
  r.get("/workflows/logs", async (c) => {
    const app = c.get("app");
    const page = intParam(c.req.query("page"), "page", 1, 99_999);
    const limit = intParam(c.req.query("limit"), "limit", 20, 100);
    const q: RunQuery = { appId: app.id };
    const status = c.req.query("status");
    if (status) {
      if (!DIFY_STATUS[status]) throw badParam(`status must be one of ${Object.keys(DIFY_STATUS).join(", ")}`);
      q.status = [DIFY_STATUS[status]!];
    }
    const keyword = c.req.query("keyword");
    if (keyword) q.search = keyword;
    const before = c.req.query("created_at__before");
    const after = c.req.query("created_at__after");
    try {
      if (before) q.until = parseTime(before, "created_at__before");
      if (after) q.since = parseTime(after, "created_at__after");
    } catch (e) {
      throw badParam((e as Error).message);
    }
    const log = deps.stores.runLog;
    // Pages are offsets in Dify; the log pages by cursor, so earlier pages are stepped over.
    let cursor: string | undefined;
    for (let skip = (page - 1) * limit; skip > 0; ) {
      const step = await log.query({ ...q, limit: Math.min(skip, 100), ...(cursor ? { cursor } : {}) });
      cursor = step.next;
      skip -= step.runs.length;
      if (!cursor) break;
    }
    const total = await log.count(q);
    const got =
      page > 1 && !cursor
        ? { runs: [] as RunLogEntry[] }
        : await log.query({ ...q, limit, ...(cursor ? { cursor } : {}) });
    const data = await Promise.all(got.runs.map((run) => logEntry(deps, run)));
    return c.json({ page, limit, total, has_more: "next" in got && !!got.next, data });
  });
  return r;
}

async function logEntry(deps: ServerDeps, run: RunLogEntry) {
  const [svc, trace] = await Promise.all([deps.stores.service.serviceRun(run.id), deps.runs.attempts(run.id)]);
  const finished = run.status !== "running" && run.status !== "paused";
  const seconds = (ms: number) => Math.floor(ms / 1000);
  return {
    id: run.id,
    workflow_run: {
      id: run.id,
      version: run.version !== undefined ? String(run.version) : "draft",
      status: difyStatus(run),
      error: run.error?.message ?? null,
      elapsed_time: (run.updatedAt - run.createdAt) / 1000,
      total_tokens: trace.reduce((n, a) => n + (a.usage?.totalTokens ?? 0), 0),
      total_steps: trace.length,
      created_at: seconds(run.createdAt),
      finished_at: finished ? seconds(run.updatedAt) : null,
      exceptions_count: trace.filter((a) => a.status === "exception").length,
      triggered_from: run.source === "v1" ? "app" : (run.source ?? "app"),
    },
    created_from: svc ? "service-api" : (run.source ?? "web-app"),
    created_by_role: svc ? "end_user" : "account",
    created_by_account: null,
    created_by_end_user: svc ? { id: svc.user, type: "service_api", is_anonymous: false, session_id: svc.user } : null,
    created_at: seconds(run.createdAt),
  };
}
