import { randomBytes } from "node:crypto";
import { existsSync, renameSync, rmSync } from "node:fs";
import type { AppEnv } from "./app-env.js";
import { KEY_BYTES, keyIdOf, type SecretKey } from "./crypto.js";
import { SecretKeyError } from "./errors.js";
import { KEY_ENV, parseKey, writeKeyFile } from "./key.js";

export const NEW_KEY_ENV = "WEFT_NEW_SECRET_KEY";

export interface Rotation {
  resealed: number;
  keyId: string;
  /** Where the new key is now: the key file, or (WEFT_SECRET_KEY) the operator's to put in place. */
  where: string;
}

/**
 * Re-seal every secret with a new key. With a key file: the new key is written to `<file>.new` first (owner
 * only), the secrets re-sealed in one transaction, then the file replaced; a crash in between leaves both keys
 * on disk. With WEFT_SECRET_KEY: the new key comes from WEFT_NEW_SECRET_KEY and the operator swaps the variables.
 */
export async function rotateKey(env: AppEnv, envNewKey = process.env[NEW_KEY_ENV]): Promise<Rotation> {
  const keys = env.keys;
  if (keys.source === KEY_ENV) {
    if (!envNewKey)
      throw new SecretKeyError(
        "secret.new_key_missing",
        `the key comes from ${KEY_ENV}: put the new key in ${NEW_KEY_ENV} (openssl rand -base64 32), rotate, then move it to ${KEY_ENV}`,
        { source: KEY_ENV },
      );
    const next = parseKey(envNewKey, NEW_KEY_ENV);
    const resealed = await env.rotate(next);
    return { resealed, keyId: next.id, where: `${NEW_KEY_ENV} (now set ${KEY_ENV} to it)` };
  }
  const pending = `${keys.file}.new`;
  if (existsSync(pending))
    throw new SecretKeyError(
      "secret.rotation_pending",
      `${pending} exists: an earlier rotation stopped half-way; check which key opens the secrets (weft env list), keep that one as ${keys.file}, and remove ${pending}`,
      { source: pending },
    );
  const bytes = randomBytes(KEY_BYTES);
  const next: SecretKey = { id: keyIdOf(bytes), bytes, source: keys.file };
  writeKeyFile(pending, bytes);
  try {
    const resealed = await env.rotate(next);
    renameSync(pending, keys.file);
    keys.reload();
    return { resealed, keyId: next.id, where: keys.file };
  } catch (e) {
    // Nothing was re-sealed (one transaction): the old key stays the key.
    rmSync(pending, { force: true });
    throw e;
  }
}
