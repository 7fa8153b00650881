import type { Stores } from "../../store/stores.js";
import { PublishedSchedules } from "./sources.js";
import { nextTicks } from "./ticks.js";

/** One schedule as `weft schedules list` shows it. */
export interface ScheduleListing {
  triggerId?: string;
  appId: string;
  nodeId: string;
  version: number;
  cron: string;
  timezone: string;
  missedTicks: string;
  enabled: boolean;
  /** ISO 8601 (UTC); absent while disabled. */
  nextFire?: string;
  lastTick?: string;
  /** A schedule whose configuration gives no time: why it does not run. */
  error?: { code: string; message: string };
}

/** The schedules of published apps with their next fire time and the last tick dealt with. */
export async function listSchedules(stores: Stores, now = Date.now()): Promise<ScheduleListing[]> {
  const { entries, broken } = await new PublishedSchedules(stores.apps).load();
  const rows = new Map(
    (await stores.triggers.list()).filter((t) => t.type === "schedule").map((t) => [`${t.appId}:${t.nodeId}`, t]),
  );
  const out: ScheduleListing[] = [];
  for (const e of entries) {
    const row = rows.get(`${e.appId}:${e.nodeId}`);
    const enabled = row?.enabled ?? true;
    const state = row ? await stores.schedules.get(row.id) : undefined;
    out.push({
      ...(row ? { triggerId: row.id } : {}),
      appId: e.appId,
      nodeId: e.nodeId,
      version: e.version,
      cron: e.spec.cron,
      timezone: e.spec.timezone,
      missedTicks: e.spec.missedTicks,
      enabled,
      ...(enabled ? { nextFire: new Date(nextTicks(e.spec, now)[0]!).toISOString() } : {}),
      ...(state ? { lastTick: new Date(state.lastTick).toISOString() } : {}),
    });
  }
  for (const b of broken)
    out.push({
      appId: b.appId,
      nodeId: b.nodeId,
      version: 0,
      cron: "",
      timezone: "",
      missedTicks: "",
      enabled: false,
      error: { code: b.error.code, message: b.error.message },
    });
  return out;
}
