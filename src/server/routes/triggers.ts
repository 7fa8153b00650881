import { Hono } from "hono";
import { listTriggers } from "../../triggers/listing.js";
import { visibleTo } from "../auth/ownership.js";
import type { ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";

/** How many latest deliveries `GET /api/triggers?deliveries=N` may ask for. */
const MAX_DELIVERIES = 50;

function deliveryCount(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 0;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > MAX_DELIVERIES)
    throw new ApiError(
      400,
      "request.bad_query",
      `deliveries must be a whole number 0-${MAX_DELIVERIES}, not "${raw}"`,
      undefined,
      {
        field: "deliveries",
      },
    );
  return n;
}

/**
 * `/api/triggers`: the triggers of published apps (`?app=ID` for one app), each with its webhook URL (on this
 * server's origin) or next fire time and, with `?deliveries=N`, its N latest deliveries; enable and disable.
 */
export function triggerRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  r.get("/", async (c) => {
    const appId = c.req.query("app") || undefined;
    // Only the caller's workspace's apps: another workspace's app is as unknown as a missing one.
    const visible = await visibleTo(deps, c, "app");
    if (appId && (!(await deps.apps.getApp(appId)) || !visible(appId)))
      throw new ApiError(404, "app.not_found", `no app with id ${appId}`, undefined, { appId });
    const baseUrl = new URL(c.req.url).origin;
    const triggers = await listTriggers(deps.stores, {
      appId,
      baseUrl,
      deliveries: deliveryCount(c.req.query("deliveries")),
    });
    return c.json({ triggers: triggers.filter((t) => visible(t.appId)) });
  });
  for (const [verb, enabled] of [
    ["enable", true],
    ["disable", false],
  ] as const)
    r.post(`/:id/${verb}`, async (c) => {
      const visible = await visibleTo(deps, c, "app");
      const found = await deps.stores.triggers.get(c.req.param("id"));
      const row = found && visible(found.appId) ? await deps.stores.triggers.setEnabled(found.id, enabled) : undefined;
      if (!row)
        throw new ApiError(404, "trigger.not_found", `no trigger with id ${c.req.param("id")}`, undefined, {
          triggerId: c.req.param("id"),
        });
      return c.json({ id: row.id, enabled: row.enabled });
    });
  return r;
}
