import { timingSafeEqual } from "node:crypto";
import { getConnInfo } from "@hono/node-server/conninfo";
import type { Hono } from "hono";
import { routePath } from "hono/route";
import type { Metrics } from "../observability/metrics.js";

const LOOPBACK = new Set(["127.0.0.1", "::1", "::ffff:127.0.0.1"]);

function sameToken(given: string, expected: string): boolean {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

/**
 * `GET /metrics` (Prometheus text) and the HTTP duration of every request. Who may scrape: with a metrics
 * token (WEFT_METRICS_TOKEN, separate from API keys) whoever sends it as a Bearer token; without one, only
 * clients on the loopback interface, so a server bound to 0.0.0.0 does not publish its metrics.
 */
export function mountMetrics(app: Hono, metrics: Metrics, token: string | undefined): void {
  app.use("*", async (c, next) => {
    const end = metrics.httpDuration.startTimer({ method: c.req.method });
    try {
      await next();
    } finally {
      end({ route: routePath(c) || "unmatched", status: String(c.res.status) });
    }
  });
  app.get("/metrics", async (c) => {
    if (token !== undefined) {
      const m = /^Bearer\s+(\S+)\s*$/i.exec(c.req.header("authorization") ?? "");
      if (!m?.[1] || !sameToken(m[1], token)) {
        return c.json(
          {
            error: {
              code: "metrics.unauthorized",
              message: "GET /metrics needs the metrics token (WEFT_METRICS_TOKEN) as a Bearer token",
            },
          },
          401,
        );
      }
    } else {
      const remote = getConnInfo(c).remote.address ?? "";
      if (!LOOPBACK.has(remote)) {
        return c.json(
          {
            error: {
              code: "metrics.forbidden",
              message:
                "GET /metrics answers loopback clients only; set WEFT_METRICS_TOKEN to allow others with that token",
            },
          },
          403,
        );
      }
    }
    return c.body(await metrics.text(), 200, { "content-type": metrics.registry.contentType });
  });
}
