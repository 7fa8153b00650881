import { getConnInfo } from "@hono/node-server/conninfo";
import { type Context, type ErrorHandler, Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { WeftError } from "../ir/errors.js";
import type { EventLog } from "../observability/log.js";
import type { Metrics } from "../observability/metrics.js";
import { apiGuard } from "./auth/guard.js";
import type { OidcConfig } from "./auth/oidc/config.js";
import { LoginThrottle } from "./auth/throttle.js";
import type { ServerDeps } from "./context.js";
import { toErrorBody } from "./errors.js";
import type { InFlight } from "./in-flight.js";
import { mountMetrics } from "./metrics-route.js";
import { appTestRoutes } from "./routes/app-tests.js";
import { appRoutes } from "./routes/apps.js";
import { auditRoutes } from "./routes/audit.js";
import { authRoutes } from "./routes/auth.js";
import { chatRoutes } from "./routes/chat.js";
import { draftRoutes } from "./routes/drafts.js";
import { envRoutes } from "./routes/env.js";
import { fileRoutes } from "./routes/files.js";
import { runFormRoutes } from "./routes/forms.js";
import { inviteRoutes } from "./routes/invites.js";
import { keyRoutes } from "./routes/keys.js";
import { knowledgeRoutes } from "./routes/knowledge.js";
import { mcpRoutes } from "./routes/mcp.js";
import { memberRoutes } from "./routes/members.js";
import { metaRoutes } from "./routes/meta.js";
import { oidcRoutes } from "./routes/oidc.js";
import { proposalRoutes } from "./routes/proposals.js";
import { runLogRoutes } from "./routes/runlog.js";
import { appRunRoutes, conversationRoutes, runRoutes } from "./routes/runs.js";
import { signedFileRoutes } from "./routes/signed-files.js";
import { triggerRoutes } from "./routes/triggers.js";
import { webhookRoutes } from "./routes/webhooks.js";
import { serveWeb } from "./static.js";
import { difyErrorBody } from "./v1/errors.js";
import { serviceApi } from "./v1/index.js";

export const DEFAULT_MAX_BODY_BYTES = 10 * 1024 * 1024;

export interface AppOptions {
  maxBodyBytes?: number;
  webDir?: string;
  /** Webhook deliveries over this size are refused with 413 (default 10 MiB, Dify's). */
  webhookMaxBodyBytes?: number;
  /** Prometheus metrics: `GET /metrics` and HTTP request durations. */
  metrics?: Metrics;
  /** Bearer token for `/metrics`; without one only loopback clients may scrape. */
  metricsToken?: string;
  /** Tracks the requests being handled, so a stopping server closes its database only after them. */
  inFlight?: InFlight;
  /** Failed sign-ins counted per address and per account (src/server/auth/throttle.ts). */
  loginThrottle?: LoginThrottle;
  /** OpenID Connect sign-in (weft.config.json auth.oidc); without it `/api/auth/oidc/*` answers oidc.not_configured. */
  oidc?: OidcConfig;
  /** The server's event log: auth failures and internal errors are events there (default: stderr lines). */
  log?: EventLog;
}

/** The client's address; requests not served by the Node server (app.request in tests) have none. */
function remoteOf(c: Context): string {
  try {
    return getConnInfo(c).remote.address ?? "";
  } catch {
    return "";
  }
}

/**
 * Errors as the API that was called spells them, and logged: refusals (401, 403) as auth events, failures of the
 * server (500) with their cause.
 */
function errorResponder(log: EventLog | undefined): ErrorHandler {
  return (e, c) => {
    // The service API answers as Dify does: `{code, message, status}`.
    const dify = new URL(c.req.url).pathname.startsWith("/v1/");
    const { status, body } = dify ? { status: difyErrorBody(e).status, body: difyErrorBody(e) } : toErrorBody(e);
    const path = new URL(c.req.url).pathname;
    if ((status === 401 || status === 403) && log) {
      const code = e instanceof WeftError ? e.code : "auth.failed";
      log.warn(
        { event: "auth.failed", method: c.req.method, path, status, code, remote: remoteOf(c) },
        `${c.req.method} ${path} refused: ${e.message}`,
      );
    }
    if (status === 500 && log) {
      const code = e instanceof WeftError ? e.code : "server.internal_error";
      log.error({ event: "server.error", method: c.req.method, path, code }, e.message);
    } else if (status === 500) {
      // Typed failures are one line (their message names the file or the cause); anything else keeps its stack.
      const line =
        e instanceof WeftError ? `${e.code}: ${e.message}` : e instanceof Error ? (e.stack ?? e.message) : String(e);
      process.stderr.write(`weft server: ${c.req.method} ${path}: ${line}\n`);
    }
    return c.json(body, status as 400);
  };
}

/** Every `/api/*` request: its caller checked (API key or session, and the route table), then its body's size. */
function guardApi(app: Hono, deps: ServerDeps, maxSize: number): void {
  app.use("/api/*", apiGuard(deps));
  app.use(
    "/api/*",
    bodyLimit({
      maxSize,
      // The rest of the body is never read, so the connection cannot be reused: tell the client to close it.
      onError: (c) =>
        c.json(
          { error: { code: "request.too_large", message: `the request body is larger than ${maxSize} bytes` } },
          413,
          { connection: "close" },
        ),
    }),
  );
}

/** `/api/apps`: the apps and, under `/:id`, each area of one app (its runs, drafts, env, chat, proposals, tests). */
function appsApi(deps: ServerDeps, runLogs: Hono): Hono {
  const apps = new Hono();
  apps.route("/", appRoutes(deps));
  apps.route("/", runLogs);
  apps.route("/", draftRoutes(deps));
  apps.route("/", envRoutes(deps));
  apps.route("/", appRunRoutes(deps));
  apps.route("/", conversationRoutes(deps));
  apps.route("/", chatRoutes(deps));
  apps.route("/", mcpRoutes(deps));
  apps.route("/", proposalRoutes(deps));
  apps.route("/", appTestRoutes(deps));
  return apps;
}

/** Accounts and workspaces: sign-in (password and OIDC), invitations, members, API keys, the audit log. */
function mountAccounts(app: Hono, deps: ServerDeps, opts: AppOptions): void {
  const throttle = opts.loginThrottle ?? new LoginThrottle();
  app.route("/api/auth", authRoutes(deps, throttle));
  app.route("/api/auth", oidcRoutes(deps, opts.oidc));
  app.route("/api/invites", inviteRoutes(deps, throttle));
  app.route("/api/members", memberRoutes(deps));
  app.route("/api/keys", keyRoutes(deps));
  app.route("/api/audit", auditRoutes(deps));
}

/** The JSON API's routes under `/api`, and its 404 for any other `/api` path. */
function mountApi(app: Hono, deps: ServerDeps, opts: AppOptions, maxSize: number): void {
  const logs = runLogRoutes(deps);
  const apps = appsApi(deps, logs.perApp);
  mountAccounts(app, deps, opts);
  app.route("/api/apps", apps);
  app.route("/api/runs", logs.all);
  app.route("/api/runs", runRoutes(deps));
  app.route("/api/knowledge", knowledgeRoutes(deps, maxSize));
  app.route("/api/runs", runFormRoutes(deps));
  app.route("/api/files", fileRoutes(deps));
  app.route("/api/triggers", triggerRoutes(deps));
  app.route("/api", metaRoutes(deps));
  app.all("/api/*", (c) =>
    c.json(
      { error: { code: "route.not_found", message: `no API route ${c.req.method} ${new URL(c.req.url).pathname}` } },
      404,
    ),
  );
}

/** The HTTP application: `/health` open, `/api/*` behind API keys or sessions and the route table, the built UI everywhere else. */
export function createApp(deps: ServerDeps, opts: AppOptions = {}): Hono {
  const app = new Hono();
  const maxSize = opts.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;

  app.onError(errorResponder(opts.log));
  app.notFound((c) =>
    c.json(
      { error: { code: "route.not_found", message: `no route ${c.req.method} ${new URL(c.req.url).pathname}` } },
      404,
    ),
  );

  if (opts.inFlight) app.use("*", opts.inFlight.middleware);
  if (opts.metrics) mountMetrics(app, opts.metrics, opts.metricsToken, opts.log);
  app.get("/health", (c) => c.json({ ok: true }));

  guardApi(app, deps, maxSize);
  mountApi(app, deps, opts, maxSize);

  app.route("/v1", serviceApi(deps, maxSize));
  app.route("/triggers/webhook", webhookRoutes(deps, opts.webhookMaxBodyBytes));
  app.route("/files", signedFileRoutes(deps));

  if (opts.webDir !== undefined) app.get("/*", serveWeb(opts.webDir));
  return app;
}
