import { createHash } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importDify } from "../dsl/dify/index.js";
import type { AppRecord, AppStore } from "../store/apps.js";
import { parseStoreSpec } from "../store/open.js";

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
