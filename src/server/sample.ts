import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { importDify } from "../dsl/dify/index.js";
import type { AppRecord, AppStore } from "../store/apps.js";

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
