import { WeftError } from "../../ir/errors.js";
import type { DeliveryRecord } from "../../store/triggers.js";
import { startTriggeredRun, type TriggerRunContext } from "../start-run.js";

/**
 * Start the run of a delivery stored as `accepted` (its inputs kept, its run id reserved) and mark it started.
 * The route calls it right after storing the delivery; recovery calls it for deliveries whose process died in
 * between. A run that already exists (the process died after starting it) is only marked.
 */
export async function startDeliveryRun(ctx: TriggerRunContext, d: DeliveryRecord): Promise<{ runId: string }> {
  if (!(await ctx.stores.runs.getRun(d.runId))) {
    const trigger = await ctx.stores.triggers.get(d.triggerId);
    const app = trigger && (await ctx.stores.apps.getApp(trigger.appId));
    if (!trigger || !app)
      throw new WeftError("trigger.not_found", `delivery ${d.id}: trigger ${d.triggerId} or its app no longer exists`, {
        triggerId: d.triggerId,
        deliveryId: d.id,
      });
    await startTriggeredRun(ctx, app, trigger.nodeId, d.payload ?? {}, {
      source: "trigger",
      triggerId: trigger.id,
      runId: d.runId,
    });
  }
  await ctx.stores.triggers.settleDelivery(d.id, { state: "started" });
  return { runId: d.runId };
}

export interface DeliveryRecoveryOptions {
  /** Only deliveries accepted at least this long ago: younger ones may still be starting in a live process. */
  afterMs?: number;
  /** How often to look (ms). */
  intervalMs?: number;
  now?: () => number;
  log?: (line: string) => void;
}

export const DEFAULT_RECOVERY_AFTER_MS = 30_000;
export const DEFAULT_RECOVERY_INTERVAL_MS = 10_000;

/** One pass: start the runs of deliveries left `accepted`; one that cannot start any more is marked `failed`. */
export async function recoverDeliveries(
  ctx: TriggerRunContext,
  o: DeliveryRecoveryOptions = {},
): Promise<{ started: string[]; failed: string[] }> {
  const now = (o.now ?? Date.now)();
  const out = { started: [] as string[], failed: [] as string[] };
  const staleBefore = now - (o.afterMs ?? DEFAULT_RECOVERY_AFTER_MS);
  for (const d of await ctx.stores.triggers.acceptedDeliveries(staleBefore)) {
    // Another server recovering at the same moment (or the route, still starting it) keeps it.
    if (!(await ctx.stores.triggers.claimDelivery(d.id, now, staleBefore))) continue;
    try {
      await startDeliveryRun(ctx, d);
      out.started.push(d.id);
    } catch (e) {
      if (!(e instanceof WeftError)) throw e;
      await ctx.stores.triggers.settleDelivery(d.id, { state: "failed", error: `${e.code}: ${e.message}` });
      out.failed.push(d.id);
      o.log?.(`webhook delivery ${d.id} not run: ${e.code}: ${e.message}`);
    }
  }
  return out;
}

/** Run `recoverDeliveries` now and every `intervalMs` until the returned stop() (which waits for a pass under way). */
export function startDeliveryRecovery(
  ctx: TriggerRunContext,
  o: DeliveryRecoveryOptions = {},
): { stop(): Promise<void> } {
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let running: Promise<unknown> = Promise.resolve();
  const log = o.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const loop = () => {
    if (stopped) return;
    running = recoverDeliveries(ctx, { ...o, log })
      .catch((e) => log(`webhook delivery recovery: ${(e as Error).message}`))
      .then(() => {
        if (!stopped) timer = setTimeout(loop, o.intervalMs ?? DEFAULT_RECOVERY_INTERVAL_MS);
      });
  };
  loop();
  return {
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
}
