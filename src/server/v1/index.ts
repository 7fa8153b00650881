import { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { ServerDeps } from "../context.js";
import { utf8Charset } from "./charset.js";
import { chatRoutes } from "./chat.js";
import { conversationRoutes } from "./conversations.js";
import type { V1Env } from "./env.js";
import { DifyError } from "./errors.js";
import { fileRoutes } from "./files.js";
import { formRoutes } from "./forms.js";
import { logRoutes } from "./logs.js";
import { metaRoutes } from "./meta.js";
import { workflowRoutes } from "./workflows.js";

function bearer(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? "")?.[1];
}

/**
 * Dify's service API under `/v1`: an `app-…` key selects its one app (`weft keys create --app`); errors are
 * Dify's `{code, message, status}` (the caller's onError renders them with `difyErrorBody`).
 */
export function serviceApi(deps: ServerDeps, maxBodyBytes: number): Hono<V1Env> {
  const r = new Hono<V1Env>();
  r.use("*", utf8Charset);
  r.use("*", async (c, next) => {
    const key = bearer(c.req.header("authorization"));
    if (!key) throw new DifyError(401, "unauthorized", "Authorization header must be provided and start with 'Bearer'");
    const appId = await deps.stores.service.appOfKey(key);
    const app = appId ? await deps.apps.getApp(appId) : undefined;
    if (!app) throw new DifyError(401, "unauthorized", "Access token is invalid");
    c.set("app", app);
    await next();
  });
  r.use(
    "*",
    bodyLimit({
      maxSize: maxBodyBytes,
      onError: (c) =>
        c.json(
          { code: "file_too_large", message: `the request body is larger than ${maxBodyBytes} bytes`, status: 413 },
          413,
          {
            connection: "close",
          },
        ),
    }),
  );
  r.route("/", logRoutes(deps));
  r.route("/", workflowRoutes(deps));
  r.route("/", chatRoutes(deps));
  r.route("/", conversationRoutes(deps));
  r.route("/", fileRoutes(deps));
  r.route("/", metaRoutes(deps));
  r.route("/", formRoutes(deps));
  r.all("*", (c) => {
    throw new DifyError(
      404,
      "not_found",
      `The requested URL was not found on the server: ${c.req.method} ${new URL(c.req.url).pathname}`,
    );
  });
  return r;
}
