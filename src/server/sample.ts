import { chmodSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importDify } from "../dsl/dify/index.js";
import type { AppRecord, AppStore } from "./store.js";

export const SAMPLE_PATH = resolve(fileURLToPath(new URL(".", import.meta.url)), "../../examples/word-stats.yml");

/** Load the sample app once: an existing app of the same name is reused. */
export function ensureSampleApp(apps: AppStore, path = SAMPLE_PATH): AppRecord {
  const { workflow } = importDify(readFileSync(path, "utf8"));
  const existing = apps.listApps().find((a) => a.name === workflow.name);
  if (existing) return existing;
  return apps.createApp(
    { name: workflow.name, mode: workflow.mode, description: workflow.description },
    workflow,
    "sample",
  ).app;
}

/** Where `weft serve --sample` keeps its key in plain text: beside the database, readable by the owner only. */
export const sampleKeyPath = (db: string) => `${db}.sample-key`;

/**
 * The sample's API key, the same across restarts: the key saved beside the database is reused while the
 * database still accepts it (a new database, or a revoked key, gets a new one). The database keeps only hashes.
 */
export function sampleKey(apps: AppStore, db: string): { key: string; reused: boolean } {
  const path = sampleKeyPath(db);
  if (db !== ":memory:" && existsSync(path)) {
    const saved = readFileSync(path, "utf8").trim();
    if (saved && apps.verifyKey(saved)) return { key: saved, reused: true };
  }
  const { key } = apps.createKey("sample");
  if (db !== ":memory:") {
    writeFileSync(path, `${key}\n`, { mode: 0o600 });
    chmodSync(path, 0o600);
  }
  return { key, reused: false };
}
