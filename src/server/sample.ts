import { createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importDify } from "../dsl/dify/index.js";
import type { AppRecord, AppStore } from "../store/apps.js";
import { parseStoreSpec } from "../store/open.js";
import type { Stores } from "../store/stores.js";
import { DEFAULT_WORKSPACE_ID, TeamStoreError } from "../store/teams.js";
import { createLink, linkUrl, SIGNIN_TTL_MS } from "./auth/links.js";
import { createMember } from "./auth/users.js";

export const SAMPLE_PATH = resolve(fileURLToPath(new URL(".", import.meta.url)), "../../examples/word-stats.yml");

/** Load the sample app once: an existing app of the same name is reused. */
export async function ensureSampleApp(apps: AppStore, path = SAMPLE_PATH): Promise<AppRecord> {
  const { workflow } = importDify(readFileSync(path, "utf8"));
  const existing = (await apps.listApps()).find((a) => a.name === workflow.name);
  if (existing) return existing;
  const created = await apps.createApp(
    { name: workflow.name, mode: workflow.mode, description: workflow.description },
    workflow,
    "sample",
  );
  return created.app;
}

/**
 * Where `weft serve --sample` keeps its key in plain text: beside the database file, readable by the owner
 * only; for a PostgreSQL database (no file to sit beside) under `.weft/` in the working directory, one file
 * per server, database and schema; in-memory databases keep none (their keys end with the process).
 */
export function sampleKeyPath(db: string): string | undefined {
  const spec = parseStoreSpec(db);
  if (spec.kind === "sqlite") return `${spec.path}.sample-key`;
  if (spec.kind === "postgres") {
    const id = createHash("sha256").update(`${spec.label}\n${spec.schema}`).digest("hex").slice(0, 16);
    return join(".weft", `postgres-${id}.sample-key`);
  }
  return undefined;
}

/**
 * The sample's API key, the same across restarts: the key saved beside the database is reused while the
 * database still accepts it (a new database, or a revoked key, gets a new one). The database keeps only hashes.
 */
export async function sampleKey(apps: AppStore, db: string): Promise<{ key: string; reused: boolean }> {
  const path = sampleKeyPath(db);
  if (path && existsSync(path)) {
    const saved = readFileSync(path, "utf8").trim();
    if (saved && (await apps.verifyKey(saved))) return { key: saved, reused: true };
  }
  const { key } = await apps.createKey("sample");
  if (path) {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, `${key}\n`, { mode: 0o600 });
    chmodSync(path, 0o600);
  }
  return { key, reused: false };
}

export const SAMPLE_OWNER_EMAIL = "owner@weft.local";

/**
 * `weft serve --sample` signs the browser in as the key did: a local owner (created on the first start, with a
 * random password nobody is shown; `weft users` manages it) and a single-use sign-in link to open.
 */
export async function sampleSignIn(
  stores: Stores,
  base: string,
): Promise<{ url: string; email: string; created: boolean }> {
  const { teams } = stores;
  let user = await teams.getUserByEmail(SAMPLE_OWNER_EMAIL);
  let created = false;
  if (!user) {
    try {
      user = (
        await createMember(stores, {
          email: SAMPLE_OWNER_EMAIL,
          password: randomBytes(24).toString("base64url"),
          role: "owner",
        })
      ).user;
      created = true;
    } catch (e) {
      // Two servers started together on one new database both found no owner; the one that lost uses the other's.
      if (!(e instanceof TeamStoreError && e.code === "user.exists")) throw e;
      user = await teams.getUserByEmail(SAMPLE_OWNER_EMAIL);
      if (!user) throw e;
    }
  }
  const member = await teams.getMembership(DEFAULT_WORKSPACE_ID, user.id);
  if (!member) await teams.setMembership(DEFAULT_WORKSPACE_ID, user.id, "owner");
  const { token } = await createLink(stores, {
    purpose: "signin",
    role: member?.role ?? "owner",
    createdBy: user.id,
    ttlMs: SIGNIN_TTL_MS,
  });
  return { url: linkUrl(base, token), email: user.email, created };
}
