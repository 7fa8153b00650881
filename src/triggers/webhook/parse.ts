import type { WebhookConfig, WebhookParam } from "../../nodes/trigger-webhook.js";
import { WebhookError } from "./errors.js";

/** What a delivery carries, as Dify's webhook service hands it to the workflow (`webhook_data`). */
export interface WebhookData {
  method: string;
  headers: Record<string, string>;
  query_params: Record<string, unknown>;
  body: Record<string, unknown>;
  files: Record<string, unknown>;
}

/** The raw request, read once by the route (the body already bounded by the size limit). */
export interface WebhookRequest {
  method: string;
  headers: Record<string, string>;
  query: Record<string, string>;
  contentType: string;
  body: Uint8Array;
  /** Multipart only: the parsed form (strings, and files already stored as Dify file values). */
  form?: Record<string, unknown>;
}

const bad = (code: string, message: string, field?: string) =>
  new WebhookError(400, code, message, field ? { field } : {});

/** The media type of a Content-Type header, lower-cased, without parameters. */
export const mediaType = (ct: string) => ct.split(";")[0]!.trim().toLowerCase();

/** Method and content type must be the node's (Dify's two 400s). */
export function checkRequestShape(c: WebhookConfig, req: WebhookRequest): void {
  if (req.method.toLowerCase() !== c.method.toLowerCase())
    throw bad(
      "webhook.method_mismatch",
      `HTTP method mismatch: expected ${c.method.toUpperCase()}, got ${req.method.toUpperCase()}`,
      "method",
    );
  const bodyless = ["get", "head", "delete"].includes(req.method.toLowerCase()) && req.body.length === 0;
  if (!bodyless && mediaType(req.contentType) !== c.content_type)
    throw bad(
      "webhook.content_type_mismatch",
      `Content-type mismatch: expected ${c.content_type}, got ${mediaType(req.contentType) || "none"}`,
      "content_type",
    );
}

function readBody(
  c: WebhookConfig,
  req: WebhookRequest,
): { body: Record<string, unknown>; files: Record<string, unknown> } {
  if (req.body.length === 0 && !req.form) return { body: {}, files: {} };
  const text = () => {
    try {
      return new TextDecoder("utf-8", { fatal: true }).decode(req.body);
    } catch {
      throw bad("webhook.malformed_body", "the body is not valid UTF-8 text", "body");
    }
  };
  switch (c.content_type) {
    case "application/json": {
      let v: unknown;
      try {
        v = JSON.parse(text());
      } catch (e) {
        throw bad("webhook.malformed_body", `the body is not valid JSON: ${(e as Error).message}`, "body");
      }
      if (v === null || typeof v !== "object" || Array.isArray(v))
        throw bad("webhook.malformed_body", "the JSON body must be an object", "body");
      return { body: v as Record<string, unknown>, files: {} };
    }
    case "application/x-www-form-urlencoded":
      return { body: Object.fromEntries(new URLSearchParams(text())), files: {} };
    case "text/plain":
      return { body: { raw: text() }, files: {} };
    case "application/octet-stream":
      return { body: { raw: Buffer.from(req.body).toString("base64") }, files: {} };
    default: {
      const form = req.form ?? {};
      const body: Record<string, unknown> = {};
      const files: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(form)) {
        if (v !== null && typeof v === "object" && "transfer_method" in (v as object)) files[k] = v;
        else body[k] = v;
      }
      return { body, files };
    }
  }
}

/** Convert a received value to the declared type, or say why not. */
export function coerce(p: WebhookParam, raw: unknown, fromText: boolean): { ok: true; value: unknown } | { ok: false } {
  const t = p.type;
  const parsed = fromText && typeof raw === "string" && t !== "string" ? tryJson(raw) : raw;
  switch (t) {
    case "string":
      return typeof raw === "string" ? { ok: true, value: raw } : { ok: false };
    case "number": {
      const n = typeof parsed === "number" ? parsed : Number.NaN;
      return Number.isFinite(n) ? { ok: true, value: n } : { ok: false };
    }
    case "boolean":
      if (typeof parsed === "boolean") return { ok: true, value: parsed };
      return { ok: false };
    case "object":
      return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)
        ? { ok: true, value: parsed }
        : { ok: false };
    case "file":
      return raw !== null && typeof raw === "object" ? { ok: true, value: raw } : { ok: false };
    default: {
      const inner = /^array\[(\w+)\]$/.exec(t)?.[1];
      if (!inner || !Array.isArray(parsed)) return { ok: false };
      const fits = (x: unknown) =>
        inner === "object" ? x !== null && typeof x === "object" && !Array.isArray(x) : typeof x === inner;
      return parsed.every(fits) ? { ok: true, value: parsed } : { ok: false };
    }
  }
}

function tryJson(s: string): unknown {
  if (s === "true" || s === "false") return s === "true";
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

function checkParams(
  group: string,
  params: readonly WebhookParam[],
  values: Record<string, unknown>,
  fromText: boolean,
  lookup?: (name: string) => unknown,
) {
  for (const p of params) {
    const raw = lookup ? lookup(p.name) : values[p.name];
    if (raw === undefined || raw === null || raw === "") {
      if (p.required)
        throw bad(
          "webhook.missing_parameter",
          `required ${group} parameter "${p.name}" is missing`,
          `${group}.${p.name}`,
        );
      continue;
    }
    const r = coerce(p, raw, fromText);
    if (!r.ok)
      throw bad(
        "webhook.invalid_parameter",
        `${group} parameter "${p.name}" must be ${p.type}, got ${JSON.stringify(raw).slice(0, 80)}`,
        `${group}.${p.name}`,
      );
    if (lookup) continue;
    values[p.name] = r.value;
  }
}

/**
 * Check a delivery against the node and build what the run receives: Dify's `webhook_data` and its parts.
 * Throws WebhookError (400) naming the field for a malformed body, a missing required or a mistyped parameter.
 */
export function buildWebhookInputs(c: WebhookConfig, req: WebhookRequest): Record<string, unknown> {
  checkRequestShape(c, req);
  const { body, files } = readBody(c, req);
  const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k.toLowerCase(), v]));
  checkParams("header", c.headers, headers, true, (n) => headers[n.toLowerCase()]);
  const query: Record<string, unknown> = { ...req.query };
  checkParams("query", c.params, query, true);
  if (c.content_type !== "text/plain" && c.content_type !== "application/octet-stream") {
    const formish = c.content_type !== "application/json";
    const scalars = c.body.filter((p) => p.type !== "file");
    checkParams("body", scalars, body, formish);
    checkParams(
      "body",
      c.body.filter((p) => p.type === "file"),
      files,
      false,
    );
  } else if (c.body.some((p) => p.required) && req.body.length === 0) {
    throw bad(
      "webhook.missing_parameter",
      `required body "${c.body.find((p) => p.required)!.name}" is missing (empty body)`,
      "body",
    );
  }
  const data: WebhookData = { method: req.method.toUpperCase(), headers, query_params: query, body, files };
  return { webhook_data: data, webhook_headers: headers, webhook_query_params: query, webhook_body: body };
}
