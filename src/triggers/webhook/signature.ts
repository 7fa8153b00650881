import { createHmac, timingSafeEqual } from "node:crypto";
import { WebhookError } from "./errors.js";

/**
 * Beyond Dify: a webhook node may carry `signature: {scheme: "hmac-sha256" | "token", secret_env: NAME,
 * header?: string}`. The secret is the app's environment variable NAME (set it with `PUT /api/apps/:id/env/NAME`,
 * type secret). hmac-sha256: the header holds the hex HMAC-SHA256 of the raw body (`sha256=` prefix allowed);
 * token: the header holds the secret itself.
 */
export interface SignatureConfig {
  scheme: "hmac-sha256" | "token";
  secret_env: string;
  header: string;
}

export function signatureConfig(v: unknown): SignatureConfig | undefined {
  if (v === undefined || v === null) return undefined;
  const o = v as Record<string, unknown>;
  const scheme = o.scheme === "token" ? "token" : "hmac-sha256";
  if (typeof o.secret_env !== "string" || o.secret_env === "")
    throw new WebhookError(
      401,
      "webhook.signature_misconfigured",
      "the webhook's signature check names no secret_env variable",
    );
  return {
    scheme,
    secret_env: o.secret_env,
    header:
      typeof o.header === "string" && o.header ? o.header : scheme === "token" ? "x-webhook-token" : "x-signature-256",
  };
}

const same = (a: string, b: string) => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
};

/** Throws WebhookError 401 unless the request carries the right signature. */
export function checkSignature(
  sig: SignatureConfig,
  secret: unknown,
  headers: Record<string, string>,
  body: Uint8Array,
): void {
  if (typeof secret !== "string" || secret === "")
    throw new WebhookError(
      401,
      "webhook.signature_secret_unset",
      `the app's environment variable ${sig.secret_env} (the webhook's secret) is not set`,
    );
  const given = headers[sig.header.toLowerCase()] ?? "";
  if (given === "")
    throw new WebhookError(401, "webhook.signature_missing", `the ${sig.header} header is missing`, {
      field: sig.header,
    });
  const ok =
    sig.scheme === "token"
      ? same(given, secret)
      : same(given.replace(/^sha256=/, "").toLowerCase(), createHmac("sha256", secret).update(body).digest("hex"));
  if (!ok)
    throw new WebhookError(401, "webhook.signature_invalid", `the ${sig.header} header does not match`, {
      field: sig.header,
    });
}
