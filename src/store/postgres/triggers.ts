import {
  type DeliveryRow,
  deliveryParams,
  nodeKey,
  type TriggerRow,
  toDelivery,
  toTrigger,
} from "../sqlite/triggers.js";
import type { DeliveryRecord, TriggerNodeRef, TriggerRecord, TriggerStore } from "../triggers.js";
import type { PgDatabase } from "./database.js";

/** Triggers and webhook deliveries on PostgreSQL (migration 11). */
export class PostgresTriggerStore implements TriggerStore {
  constructor(private readonly db: PgDatabase) {}

  async sync(appId: string, nodes: readonly TriggerNodeRef[], mint: () => string): Promise<TriggerRecord[]> {
    const now = Date.now();
    await this.db.tx(async (q) => {
      const have = await q<TriggerRow>("SELECT * FROM triggers WHERE app_id = $1 FOR UPDATE", [appId]);
      const wanted = new Set(nodes.map(nodeKey));
      const gone = have.filter((r) => !wanted.has(nodeKey({ type: r.type, nodeId: r.node_id }))).map((r) => r.id);
      if (gone.length > 0) {
        await q("DELETE FROM trigger_deliveries WHERE trigger_id = ANY($1::text[])", [gone]);
        await q("DELETE FROM triggers WHERE id = ANY($1::text[])", [gone]);
      }
      for (const n of nodes)
        await q(
          `INSERT INTO triggers (id, type, app_id, node_id, enabled, created_at, updated_at)
           VALUES ($1, $2, $3, $4, true, $5, $5) ON CONFLICT (app_id, type, node_id) DO NOTHING`,
          [mint(), n.type, appId, n.nodeId, now],
        );
    });
    return this.list(appId);
  }

  async get(id: string): Promise<TriggerRecord | undefined> {
    const [r] = await this.db.query<TriggerRow>("SELECT * FROM triggers WHERE id = $1", [id]);
    return r && toTrigger(r);
  }

  async list(appId?: string): Promise<TriggerRecord[]> {
    const rows =
      appId === undefined
        ? await this.db.query<TriggerRow>("SELECT * FROM triggers ORDER BY created_at, id")
        : await this.db.query<TriggerRow>("SELECT * FROM triggers WHERE app_id = $1 ORDER BY created_at, id", [appId]);
    return rows.map(toTrigger);
  }

  async setEnabled(id: string, enabled: boolean): Promise<TriggerRecord | undefined> {
    const [r] = await this.db.query<TriggerRow>(
      "UPDATE triggers SET enabled = $1, updated_at = $2 WHERE id = $3 RETURNING *",
      [enabled, Date.now(), id],
    );
    return r && toTrigger(r);
  }

  async deleteApp(appId: string): Promise<void> {
    await this.db.tx(async (q) => {
      await q("DELETE FROM trigger_deliveries WHERE trigger_id IN (SELECT id FROM triggers WHERE app_id = $1)", [
        appId,
      ]);
      await q("DELETE FROM triggers WHERE app_id = $1", [appId]);
    });
  }

  async recordDelivery(d: DeliveryRecord): Promise<{ delivery: DeliveryRecord; fresh: boolean }> {
    const inserted = await this.db.query<{ id: string }>(
      `INSERT INTO trigger_deliveries (id, trigger_id, idempotency_key, run_id, status, received_at, state, payload, claimed_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) ON CONFLICT DO NOTHING RETURNING id`,
      deliveryParams(d),
    );
    if (inserted.length === 1) return { delivery: { ...d, state: d.state ?? "started" }, fresh: true };
    const [r] = await this.db.query<DeliveryRow>(
      "SELECT * FROM trigger_deliveries WHERE trigger_id = $1 AND idempotency_key = $2",
      [d.triggerId, d.idempotencyKey ?? null],
    );
    if (!r) throw new Error(`delivery ${d.id} was neither stored nor found`);
    return { delivery: toDelivery(r), fresh: false };
  }

  async settleDelivery(id: string, outcome: { state: "started" } | { state: "failed"; error: string }): Promise<void> {
    await this.db.query("UPDATE trigger_deliveries SET state = $1, payload = NULL, error = $2 WHERE id = $3", [
      outcome.state,
      outcome.state === "failed" ? outcome.error : null,
      id,
    ]);
  }

  async claimDelivery(id: string, now: number, staleBefore: number): Promise<boolean> {
    const rows = await this.db.query<{ id: string }>(
      `UPDATE trigger_deliveries SET claimed_at = $1
       WHERE id = $2 AND state = 'accepted' AND (claimed_at IS NULL OR claimed_at < $3) RETURNING id`,
      [now, id, staleBefore],
    );
    return rows.length === 1;
  }

  async acceptedDeliveries(receivedBefore: number, limit = 100): Promise<DeliveryRecord[]> {
    const rows = await this.db.query<DeliveryRow>(
      "SELECT * FROM trigger_deliveries WHERE state = 'accepted' AND received_at < $1 ORDER BY received_at, id LIMIT $2",
      [receivedBefore, limit],
    );
    return rows.map(toDelivery);
  }

  async deliveries(triggerId: string, limit = 20): Promise<DeliveryRecord[]> {
    const rows = await this.db.query<DeliveryRow>(
      "SELECT * FROM trigger_deliveries WHERE trigger_id = $1 ORDER BY received_at DESC, id DESC LIMIT $2",
      [triggerId, limit],
    );
    return rows.map(toDelivery);
  }

  async countDeliveries(triggerId?: string): Promise<number> {
    const [r] =
      triggerId === undefined
        ? await this.db.query<{ n: string }>("SELECT COUNT(*) AS n FROM trigger_deliveries")
        : await this.db.query<{ n: string }>("SELECT COUNT(*) AS n FROM trigger_deliveries WHERE trigger_id = $1", [
            triggerId,
          ]);
    return Number(r!.n);
  }
}
