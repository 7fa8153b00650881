import { scheduleFirePayload } from "../../nodes/trigger-schedule.js";
import type { Stores } from "../../store/stores.js";
import type { TriggerRecord } from "../../store/triggers.js";
import { startTriggeredRun, type TriggerRunStarter } from "../start-run.js";
import { syncAppTriggers } from "../sync.js";
import { DEFAULT_GRACE_MS, DEFAULT_POLL_MS, DEFAULT_REDISPATCH_MS, type FireDispatch, Scheduler } from "./scheduler.js";
import { PublishedSchedules, type ScheduleEntry } from "./sources.js";

export interface ScheduleRunnerOptions {
  stores: Stores;
  /** Starts the run: the server's RunHub (embedded) or a queue submit (Redis configured). */
  starter: TriggerRunStarter;
  /** The payload the trigger node exposes for a tick (its fire time); see src/triggers/README.md. */
  payload?: (tick: number, timezone: string) => Record<string, unknown>;
  now?: () => number;
  pollMs?: number;
  graceMs?: number;
  log?: (line: string) => void;
}

/** What the trigger-schedule node exposes: the fire time in the trigger's zone, ISO 8601 with its offset. */
const nodePayload = (tick: number, timezone: string) => scheduleFirePayload(new Date(tick), timezone);

/**
 * The published apps' schedules keyed by their trigger id (the TriggerStore row of the app's node), with its
 * enabled flag. A published schedule without a row yet (published by a command that did not sync) gets one.
 */
async function triggeredSchedules(stores: Stores, published: PublishedSchedules) {
  const { entries, broken } = await published.load();
  // No published schedule: no trigger row to look up (every poll of every process asked for all of them).
  if (entries.length === 0) return { entries, broken };
  const rowOf = async (): Promise<Map<string, TriggerRecord>> =>
    new Map(
      (await stores.triggers.list()).filter((t) => t.type === "schedule").map((t) => [`${t.appId}:${t.nodeId}`, t]),
    );
  let rows = await rowOf();
  const missing = new Set(entries.filter((e) => !rows.has(`${e.appId}:${e.nodeId}`)).map((e) => e.appId));
  if (missing.size > 0) {
    for (const appId of missing) await syncAppTriggers(stores, appId);
    rows = await rowOf();
  }
  const keyed: ScheduleEntry[] = [];
  for (const e of entries) {
    const row = rows.get(`${e.appId}:${e.nodeId}`);
    if (row) keyed.push({ ...e, key: row.id, enabled: row.enabled });
  }
  return { entries: keyed, broken };
}

/** Starts one tick's run of the published version at its trigger node; a run that already exists is left alone. */
function dispatcher(o: ScheduleRunnerOptions): FireDispatch {
  const payload = o.payload ?? nodePayload;
  return async (entry, fire) => {
    if (await o.stores.runs.getRun(fire.runId)) return;
    const app = await o.stores.apps.getApp(entry.appId);
    if (!app) return;
    await startTriggeredRun(
      { stores: o.stores, starter: o.starter },
      app,
      entry.nodeId,
      payload(fire.tick, entry.spec.timezone),
      { source: "trigger", triggerId: entry.key, runId: fire.runId, sys: { schedule_tick: fire.tick } },
    );
  };
}

/** A scheduler over one database's published schedules; `start()` it in every `weft serve` and `weft worker`. */
export function createScheduleRunner(o: ScheduleRunnerOptions): Scheduler {
  const published = new PublishedSchedules(o.stores.apps);
  return new Scheduler({
    store: o.stores.schedules,
    schedules: () => triggeredSchedules(o.stores, published),
    dispatch: dispatcher(o),
    now: o.now,
    pollMs: o.pollMs ?? envMs("WEFT_SCHEDULE_POLL_MS", DEFAULT_POLL_MS),
    graceMs: o.graceMs ?? envMs("WEFT_SCHEDULE_GRACE_MS", DEFAULT_GRACE_MS),
    redispatchAfterMs: envMs("WEFT_SCHEDULE_REDISPATCH_MS", DEFAULT_REDISPATCH_MS),
    log: o.log,
  });
}

function envMs(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || n < 1)
    throw new Error(`${name} must be a whole number of milliseconds of at least 1, not "${raw}"`);
  return n;
}
