import { randomBytes } from "node:crypto";
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, statSync, writeSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseStoreSpec } from "../store/open.js";
import { KEY_BYTES, keyIdOf, type SecretKey } from "./crypto.js";
import { SecretKeyError } from "./errors.js";

export const KEY_ENV = "WEFT_SECRET_KEY";
export const KEY_FILE_ENV = "WEFT_SECRET_KEY_FILE";
export const KEY_FILE_NAME = "weft-secret.key";

/**
 * Read a key: 64 hex digits, or base64 of exactly 32 bytes (what `openssl rand -base64 32` prints and what
 * Weft writes to its key file).
 */
export function parseKey(text: string, source: string): SecretKey {
  const t = text.trim();
  const bytes = /^[0-9a-fA-F]{64}$/.test(t) ? Buffer.from(t, "hex") : Buffer.from(t, "base64");
  if (bytes.length !== KEY_BYTES || (!/^[0-9a-fA-F]{64}$/.test(t) && !/^[A-Za-z0-9+/]+={0,2}$/.test(t)))
    throw new SecretKeyError(
      "secret.bad_key",
      `${source} does not hold a 32-byte key: give 64 hex digits or base64 of 32 bytes (openssl rand -base64 32)`,
      { source },
    );
  return { id: keyIdOf(bytes), bytes, source };
}

/**
 * Where the key file is: WEFT_SECRET_KEY_FILE (or the config's path), else next to a SQLite database, else
 * ~/.weft/weft-secret.key (PostgreSQL, memory).
 */
export function keyFilePath(db: string, configured?: string): string {
  const given = process.env[KEY_FILE_ENV] || configured;
  if (given) return resolve(given);
  const spec = parseStoreSpec(db);
  if (spec.kind === "sqlite" && spec.path !== ":memory:") return join(dirname(resolve(spec.path)), KEY_FILE_NAME);
  return join(homedir(), ".weft", KEY_FILE_NAME);
}

function readKeyFile(path: string): SecretKey {
  const mode = statSync(path).mode & 0o777;
  if ((mode & 0o077) !== 0)
    throw new SecretKeyError(
      "secret.key_file_open",
      `the secret key file ${path} is readable by others (mode ${mode.toString(8)}); run chmod 600 ${path}`,
      { source: path },
    );
  return parseKey(readFileSync(path, "utf8"), path);
}

/** Write a new key file, owner-only, refusing to overwrite one (another process may have just made it). */
export function writeKeyFile(path: string, bytes: Buffer): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const fd = openSync(path, "wx", 0o600);
  try {
    writeSync(fd, `${bytes.toString("base64")}\n`);
  } finally {
    closeSync(fd);
  }
  chmodSync(path, 0o600);
}

/**
 * The key secrets are sealed with: WEFT_SECRET_KEY when set, else the key file. `get` creates the file on first
 * use (a secret is set); `existing` never creates it.
 */
export class KeyProvider {
  private cached?: SecretKey;

  constructor(
    readonly file: string,
    private readonly envValue: string | undefined = process.env[KEY_ENV],
  ) {}

  /** Where the key comes from, for messages. */
  get source(): string {
    return this.envValue ? KEY_ENV : this.file;
  }

  existing(): SecretKey | undefined {
    if (this.cached) return this.cached;
    if (this.envValue) this.cached = parseKey(this.envValue, KEY_ENV);
    else if (existsSync(this.file)) this.cached = readKeyFile(this.file);
    return this.cached;
  }

  get(): SecretKey {
    const have = this.existing();
    if (have) return have;
    try {
      writeKeyFile(this.file, randomBytes(KEY_BYTES));
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST")
        throw new SecretKeyError(
          "secret.key_file_unwritable",
          `cannot create the secret key file ${this.file}: ${(e as Error).message}; set ${KEY_FILE_ENV} to a writable path or ${KEY_ENV}`,
          { source: this.file },
        );
    }
    this.cached = readKeyFile(this.file);
    return this.cached;
  }

  /** Forget the cached key (after a rotation rewrote the file). */
  reload(): void {
    this.cached = undefined;
  }
}
