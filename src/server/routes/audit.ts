import { Hono } from "hono";
import { MAX_AUDIT_PAGE } from "../../store/audit.js";
import { workspaceOf } from "../auth/ownership.js";
import type { ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";
import { parseTime } from "../run-query.js";

/** `since` (24h, an ISO time or epoch ms) and `limit` (1–1000) of an audit query; refused with the value named. */
export function auditQuery(raw: { since?: string; limit?: string }, now = Date.now()) {
  let since: number | undefined;
  if (raw.since !== undefined) {
    try {
      since = parseTime(raw.since, "since", now);
    } catch (e) {
      throw new ApiError(400, "audit.invalid_since", (e as Error).message);
    }
  }
  const limit = raw.limit === undefined ? undefined : Number(raw.limit);
  if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= MAX_AUDIT_PAGE))
    throw new ApiError(
      400,
      "audit.invalid_limit",
      `limit must be an integer 1-${MAX_AUDIT_PAGE}, got ${JSON.stringify(raw.limit)}`,
    );
  return { since, limit };
}

/** GET /api/audit: the caller's workspace's audit log, newest first (owners and admins: `audit.read`). */
export function auditRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.get("/", async (c) => {
    const q = auditQuery({ since: c.req.query("since"), limit: c.req.query("limit") });
    return c.json({ entries: await deps.stores.audit.list({ ...q, workspaceId: workspaceOf(c) }) });
  });
  return r;
}
