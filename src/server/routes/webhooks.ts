import { Hono, type HonoRequest } from "hono";
import { bodyLimit } from "hono/body-limit";
import type { FileValue } from "../../ir/services.js";
import { triggerWebhookNode, type WebhookConfig } from "../../nodes/trigger-webhook.js";
import { WebhookError } from "../../triggers/webhook/errors.js";
import { buildWebhookInputs, mediaType, type WebhookRequest } from "../../triggers/webhook/parse.js";
import { startDeliveryRun } from "../../triggers/webhook/recover.js";
import { checkSignature, signatureConfig } from "../../triggers/webhook/signature.js";
import { newId } from "../../util/ids.js";
import type { ServerDeps } from "../context.js";
import { readMultipart } from "../multipart.js";

/** Dify's default webhook body limit (WEBHOOK_REQUEST_BODY_MAX_SIZE): 10 MiB. */
export const DEFAULT_WEBHOOK_MAX_BYTES = 10 * 1024 * 1024;

const fail = (c: { json: (b: unknown, s: number) => Response }, e: WebhookError) =>
  c.json({ error: { code: e.code, message: e.message, ...e.details } }, e.status);

/** The trigger row, app and published node a webhook id names, or 404 (unknown, disabled, unpublished). */
async function resolveWebhook(deps: ServerDeps, id: string) {
  const gone = () => new WebhookError(404, "webhook.not_found", `no enabled webhook ${id} on a published app`);
  const trigger = await deps.stores.triggers.get(id);
  if (trigger?.type !== "webhook" || !trigger.enabled) throw gone();
  const app = await deps.apps.getApp(trigger.appId);
  const published = app && (await deps.apps.published(app.id));
  const node = published?.workflow.nodes.find((n) => n.id === trigger.nodeId && n.type === "trigger-webhook");
  if (!app || !node) throw gone();
  const config = triggerWebhookNode.configSchema.parse(node.config) as WebhookConfig;
  return { trigger, app, node, config };
}

/** Multipart parts: text fields as strings, files into the server's file store as Dify file values. */
async function readForm(deps: ServerDeps, req: HonoRequest): Promise<Record<string, unknown>> {
  const form = await readMultipart(req);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(form)) {
    const one = Array.isArray(v) ? v[0]! : v;
    if (typeof one === "string") {
      out[k] = one;
      continue;
    }
    const files = deps.services.files;
    if (!files)
      throw new WebhookError(
        400,
        "webhook.files_not_configured",
        `file field "${k}" needs a file store: set files.dir in weft.config.json`,
        { field: `body.${k}` },
      );
    const f: FileValue = await files.put(new Uint8Array(await one.arrayBuffer()), {
      filename: one.name,
      mimeType: one.type,
    });
    out[k] = f;
  }
  return out;
}

/**
 * `ANY /triggers/webhook/:id`, as Dify 1.10 serves webhooks: the published app's trigger-webhook node decides
 * method, content type and parameters; the caller gets the node's status_code and response_body as soon as the
 * run is stored, while it runs on. Refusals (400/401/404/413) store nothing.
 */
export function webhookRoutes(deps: ServerDeps, maxBytes = DEFAULT_WEBHOOK_MAX_BYTES): Hono {
  const r = new Hono();
  r.use(
    "/:id",
    bodyLimit({
      maxSize: maxBytes,
      onError: (c) =>
        c.json(
          { error: { code: "webhook.too_large", message: `the request body is larger than ${maxBytes} bytes` } },
          413,
          {
            connection: "close",
          },
        ),
    }),
  );
  r.all("/:id", async (c) => {
    try {
      const { trigger, app, node, config } = await resolveWebhook(deps, c.req.param("id"));
      const headers: Record<string, string> = {};
      c.req.raw.headers.forEach((v, k) => {
        headers[k.toLowerCase()] = v;
      });
      const contentType = headers["content-type"] ?? "";
      const multipart =
        config.content_type === "multipart/form-data" && mediaType(contentType) === "multipart/form-data";
      const body = multipart ? new Uint8Array() : new Uint8Array(await c.req.arrayBuffer());
      const req: WebhookRequest = { method: c.req.method, headers, query: c.req.query(), contentType, body };
      const sig = signatureConfig(node.config.signature);
      // Before the body is parsed or stored: an unsigned caller learns nothing about the parameters.
      if (sig) checkSignature(sig, (await deps.env.forRun(app.id)).values[sig.secret_env], headers, body);
      if (multipart) req.form = await readForm(deps, c.req);
      const inputs = buildWebhookInputs(config, req);
      const key = headers["idempotency-key"];
      const runId = newId();
      const now = Date.now();
      // Stored first as `accepted` with the run's inputs: if this process dies before the run exists, the
      // recovery of any server on this database starts it (src/triggers/webhook/recover.ts).
      const { delivery, fresh } = await deps.stores.triggers.recordDelivery({
        id: newId(),
        triggerId: trigger.id,
        ...(key ? { idempotencyKey: key } : {}),
        runId,
        status: config.status_code,
        receivedAt: now,
        claimedAt: now,
        state: "accepted",
        payload: inputs,
      });
      if (fresh) await startDeliveryRun({ stores: deps.stores, starter: deps.hub }, delivery);
      const text = config.response_body;
      const json = text.trim().startsWith("{") || text.trim().startsWith("[");
      return c.body(text, config.status_code as 200, {
        "content-type": json ? "application/json" : "text/plain; charset=utf-8",
      });
    } catch (e) {
      if (e instanceof WebhookError) return fail(c, e);
      throw e;
    }
  });
  return r;
}
