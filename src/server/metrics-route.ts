import { timingSafeEqual } from "node:crypto";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { getConnInfo } from "@hono/node-server/conninfo";
import { Hono } from "hono";
import { routePath } from "hono/route";
import type { EventLog } from "../observability/log.js";
import type { Metrics } from "../observability/metrics.js";
import { listenError } from "./listen-error.js";

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
export function mountMetrics(app: Hono, metrics: Metrics, token: string | undefined, log?: EventLog): void {
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
        log?.warn(
          { event: "auth.failed", method: "GET", path: "/metrics", status: 401, code: "metrics.unauthorized" },
          "GET /metrics refused: no or a wrong metrics token",
        );
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
        log?.warn(
          { event: "auth.failed", method: "GET", path: "/metrics", status: 403, code: "metrics.forbidden", remote },
          `GET /metrics refused: ${remote} is not loopback and no metrics token is set`,
        );
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

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

/**
 * `GET /metrics` alone on its own port, for processes without an HTTP API (`weft worker --metrics-port`).
 * Loopback by default; another host needs WEFT_METRICS_TOKEN to be scraped from elsewhere.
 */
export async function startMetricsServer(o: {
  metrics: Metrics;
  port: number;
  host?: string;
  token?: string;
  log?: EventLog;
}): Promise<MetricsServer> {
  const app = new Hono();
  mountMetrics(app, o.metrics, o.token, o.log);
  const host = o.host ?? "127.0.0.1";
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: o.port, hostname: host }, () => resolve(s));
    s.once("error", (e) => reject(listenError(e as NodeJS.ErrnoException, host, o.port, "--metrics-port")));
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/metrics`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}
