import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import type { SealedValue } from "../store/env.js";
import { SecretKeyError } from "./errors.js";

/** A 32-byte AES-256-GCM key, its id (stored with every value it seals) and where it came from (for messages). */
export interface SecretKey {
  id: string;
  bytes: Buffer;
  /** "WEFT_SECRET_KEY" or the key file's path. */
  source: string;
}

export const KEY_BYTES = 32;

/** The key's id: the first 16 hex digits of its SHA-256 (identifies it without revealing it). */
export function keyIdOf(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex").slice(0, 16);
}

/**
 * The value is bound to its app and name (additional authenticated data): a sealed value copied to another
 * variable or app does not open.
 */
const aad = (appId: string, name: string) => Buffer.from(`weft-env\u0000${appId}\u0000${name}`, "utf8");

export function seal(key: SecretKey, appId: string, name: string, clear: string): SealedValue {
  const iv = randomBytes(12);
  const c = createCipheriv("aes-256-gcm", key.bytes, iv);
  c.setAAD(aad(appId, name));
  const data = Buffer.concat([c.update(clear, "utf8"), c.final()]);
  return {
    keyId: key.id,
    iv: iv.toString("base64"),
    tag: c.getAuthTag().toString("base64"),
    data: data.toString("base64"),
  };
}

export function open(key: SecretKey, appId: string, name: string, s: SealedValue): string {
  const wrong = (why: string) =>
    new SecretKeyError(
      "secret.wrong_key",
      `the secret ${name} of app ${appId} does not open with the key from ${key.source} (${why}); set WEFT_SECRET_KEY or the key file back to the key it was sealed with`,
      { appId, name, source: key.source, keyId: s.keyId },
    );
  if (s.keyId !== key.id) throw wrong(`sealed with key ${s.keyId}, the key given is ${key.id}`);
  try {
    const d = createDecipheriv("aes-256-gcm", key.bytes, Buffer.from(s.iv, "base64"));
    d.setAAD(aad(appId, name));
    d.setAuthTag(Buffer.from(s.tag, "base64"));
    return Buffer.concat([d.update(Buffer.from(s.data, "base64")), d.final()]).toString("utf8");
  } catch {
    throw wrong("authentication failed");
  }
}
