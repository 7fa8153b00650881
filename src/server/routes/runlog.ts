import type { Context } from "hono";
import { Hono } from "hono";
import { summedUsage } from "../../observability/run-usage.js";
import type { RunLogEntry } from "../../store/runlog.js";
import { visibleTo } from "../auth/ownership.js";
import { requireApp, type ServerDeps } from "../context.js";
import { parseRunQuery, runLink } from "../run-query.js";

const withLink = (r: RunLogEntry) => ({ ...r, link: runLink(r) });

/** Run logs: `GET /api/runs` across apps and `GET /api/apps/:id/runs` for one, with filters, search and cursor paging. */
export function runLogRoutes(deps: ServerDeps): { all: Hono; perApp: Hono } {
  const list = async (c: Context, appId?: string) => {
    const q = parseRunQuery({ ...c.req.query(), ...(appId ? { app: appId } : {}) });
    const page = await deps.stores.runLog.query(q);
    // Another workspace's runs are left out of the page; the cursor still moves past them.
    const visible = await visibleTo(deps, c, "app");
    const runs = page.runs.filter((r) => visible(r.appId ?? ""));
    return c.json({ runs: runs.map(withLink), next: page.next ?? null });
  };
  const all = new Hono();
  all.get("/", (c) => list(c));
  const perApp = new Hono();
  perApp.get("/:id/runs", async (c) => list(c, (await requireApp(deps, c.req.param("id"))).id));
  // The app's token usage and cost summed over its runs, filtered as the run list is (since, until, source…).
  perApp.get("/:id/usage", async (c) => {
    const appId = (await requireApp(deps, c.req.param("id"))).id;
    const { limit: _l, cursor: _c, ...q } = parseRunQuery({ ...c.req.query(), app: appId });
    return c.json({ appId, ...(await summedUsage(deps.stores, q, deps.prices)) });
  });
  return { all, perApp };
}
