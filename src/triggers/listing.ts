import type { Stores } from "../store/stores.js";
import type { DeliveryRecord, TriggerRecord, TriggerType } from "../store/triggers.js";
import { PublishedSchedules, scheduleKey } from "./schedule/sources.js";
import { nextTicks } from "./schedule/ticks.js";

/** The path a webhook trigger answers on `weft serve`. */
export const webhookPath = (id: string) => `/triggers/webhook/${id}`;

/** One delivery as listed: times ISO 8601, the run it started. */
export interface DeliveryListing {
  id: string;
  status: number;
  receivedAt: string;
  runId: string;
  /** `accepted` until its run exists, `started`, or `failed` (with `error`); schedules: `started` once dispatched. */
  state: string;
  error?: string;
  idempotencyKey?: string;
}

/** One trigger as `weft triggers list`, `GET /api/triggers` and the studio's inspector show it. */
export interface TriggerListing {
  id: string;
  type: TriggerType;
  appId: string;
  nodeId: string;
  enabled: boolean;
  /** Webhooks: the URL callers post to (the path alone when no base URL is known). */
  url?: string;
  /** Schedules: the next fire time (ISO 8601, UTC) while enabled; `cron` and `timezone` as computed. */
  nextFire?: string;
  cron?: string;
  timezone?: string;
  missedTicks?: string;
  /** A schedule whose configuration gives no time: why it does not run. */
  error?: { code: string; message: string };
  /** The newest deliveries (webhooks) or fired ticks (schedules), newest first, when asked for. */
  deliveries?: DeliveryListing[];
}

export interface ListTriggersOptions {
  appId?: string;
  /** Base URL of the server (`http://host:port`), prefixed to webhook paths. */
  baseUrl?: string;
  /** How many of the latest deliveries to include per trigger (0: none). */
  deliveries?: number;
  now?: number;
}

const deliveryListing = (d: DeliveryRecord): DeliveryListing => ({
  id: d.id,
  status: d.status,
  receivedAt: new Date(d.receivedAt).toISOString(),
  runId: d.runId,
  state: d.state ?? "started",
  ...(d.error ? { error: d.error } : {}),
  ...(d.idempotencyKey ? { idempotencyKey: d.idempotencyKey } : {}),
});

/** Every trigger row (of one app) with what an operator needs: URL, next fire time, latest deliveries. */
export async function listTriggers(stores: Stores, o: ListTriggersOptions = {}): Promise<TriggerListing[]> {
  const now = o.now ?? Date.now();
  const rows = await stores.triggers.list(o.appId);
  const { entries, broken } = await new PublishedSchedules(stores.apps).load();
  const specs = new Map(entries.map((e) => [e.key, e.spec]));
  const errors = new Map(broken.map((b) => [scheduleKey(b.appId, b.nodeId), b.error]));
  const out: TriggerListing[] = [];
  for (const t of rows) out.push(await describe(stores, t, { ...o, now, specs, errors }));
  return out;
}

async function describe(
  stores: Stores,
  t: TriggerRecord,
  o: ListTriggersOptions & {
    now: number;
    specs: Map<string, { cron: string; timezone: string; missedTicks: string }>;
    errors: Map<string, { code: string; message: string }>;
  },
): Promise<TriggerListing> {
  const base: TriggerListing = { id: t.id, type: t.type, appId: t.appId, nodeId: t.nodeId, enabled: t.enabled };
  const limit = o.deliveries ?? 0;
  if (t.type === "webhook") {
    base.url = `${(o.baseUrl ?? "").replace(/\/+$/, "")}${webhookPath(t.id)}`;
    if (limit > 0) base.deliveries = (await stores.triggers.deliveries(t.id, limit)).map(deliveryListing);
  }
  if (t.type === "schedule") {
    const key = scheduleKey(t.appId, t.nodeId);
    const spec = o.specs.get(key);
    const error = o.errors.get(key);
    if (error) base.error = { code: error.code, message: error.message };
    if (spec) {
      Object.assign(base, { cron: spec.cron, timezone: spec.timezone, missedTicks: spec.missedTicks });
      const next = t.enabled ? nextTicks(spec, o.now)[0] : undefined;
      if (next !== undefined) base.nextFire = new Date(next).toISOString();
    }
    if (limit > 0) base.deliveries = await scheduleFires(stores, t, limit);
  }
  return base;
}

/** A schedule's fired ticks as deliveries: "received" at the tick, started (202) once its run was dispatched. */
async function scheduleFires(stores: Stores, t: TriggerRecord, limit: number): Promise<DeliveryListing[]> {
  return (await stores.schedules.fires(t.id, limit)).map((f) => ({
    id: `${t.id}:${f.tick}`,
    status: f.dispatchedAt !== undefined ? 202 : 0,
    receivedAt: new Date(f.tick).toISOString(),
    runId: f.runId,
    state: f.dispatchedAt !== undefined ? "started" : "accepted",
  }));
}
