import type Database from "better-sqlite3";
import type { DeliveryRecord, DeliveryState, TriggerNodeRef, TriggerRecord, TriggerStore } from "../triggers.js";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS triggers (
  id TEXT PRIMARY KEY, type TEXT NOT NULL, app_id TEXT NOT NULL, node_id TEXT NOT NULL, enabled INTEGER NOT NULL,
  created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, UNIQUE (app_id, type, node_id));
CREATE TABLE IF NOT EXISTS trigger_deliveries (
  id TEXT PRIMARY KEY, trigger_id TEXT NOT NULL, idempotency_key TEXT, run_id TEXT NOT NULL, status INTEGER NOT NULL,
  received_at INTEGER NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS trigger_deliveries_key ON trigger_deliveries (trigger_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX IF NOT EXISTS trigger_deliveries_recent ON trigger_deliveries (trigger_id, received_at DESC, id DESC);
`;

export interface TriggerRow {
  id: string;
  type: TriggerRecord["type"];
  app_id: string;
  node_id: string;
  enabled: number | boolean;
  created_at: number | string;
  updated_at: number | string;
}

export interface DeliveryRow {
  id: string;
  trigger_id: string;
  idempotency_key: string | null;
  run_id: string;
  status: number;
  received_at: number | string;
  state: string | null;
  /** JSON text (SQLite) or an object (PostgreSQL jsonb). */
  payload: string | Record<string, unknown> | null;
  error: string | null;
  claimed_at: number | string | null;
}

/** Columns added after the table shipped (PostgreSQL: migration 15). */
const DELIVERY_COLUMNS: Array<[string, string]> = [
  ["state", "TEXT NOT NULL DEFAULT 'started'"],
  ["payload", "TEXT"],
  ["error", "TEXT"],
  ["claimed_at", "INTEGER"],
];

export const toTrigger = (r: TriggerRow): TriggerRecord => ({
  id: r.id,
  type: r.type,
  appId: r.app_id,
  nodeId: r.node_id,
  enabled: r.enabled === true || r.enabled === 1,
  createdAt: Number(r.created_at),
  updatedAt: Number(r.updated_at),
});

export const toDelivery = (r: DeliveryRow): DeliveryRecord => ({
  id: r.id,
  triggerId: r.trigger_id,
  ...(r.idempotency_key !== null ? { idempotencyKey: r.idempotency_key } : {}),
  runId: r.run_id,
  status: Number(r.status),
  receivedAt: Number(r.received_at),
  state: (r.state ?? "started") as DeliveryState,
  ...(r.payload !== null && r.payload !== undefined
    ? { payload: typeof r.payload === "string" ? (JSON.parse(r.payload) as Record<string, unknown>) : r.payload }
    : {}),
  ...(r.error ? { error: r.error } : {}),
  ...(r.claimed_at !== null && r.claimed_at !== undefined ? { claimedAt: Number(r.claimed_at) } : {}),
});

/** A delivery's values in the column order both SQL stores insert them (see recordDelivery). */
export const deliveryParams = (d: DeliveryRecord) => [
  d.id,
  d.triggerId,
  d.idempotencyKey ?? null,
  d.runId,
  d.status,
  d.receivedAt,
  d.state ?? "started",
  d.payload !== undefined ? JSON.stringify(d.payload) : null,
  d.claimedAt ?? null,
];

export const nodeKey = (n: TriggerNodeRef) => `${n.type}\u0000${n.nodeId}`;

/** Triggers and webhook deliveries on the shared SQLite connection. */
export class SqliteTriggerStore implements TriggerStore {
  constructor(private readonly db: Database.Database) {
    db.exec(SCHEMA);
    const have = new Set(
      (db.prepare("PRAGMA table_info(trigger_deliveries)").all() as Array<{ name: string }>).map((c) => c.name),
    );
    for (const [name, decl] of DELIVERY_COLUMNS)
      if (!have.has(name)) db.exec(`ALTER TABLE trigger_deliveries ADD COLUMN ${name} ${decl}`);
    db.exec(
      "CREATE INDEX IF NOT EXISTS trigger_deliveries_accepted ON trigger_deliveries (received_at) WHERE state = 'accepted'",
    );
  }

  async sync(appId: string, nodes: readonly TriggerNodeRef[], mint: () => string): Promise<TriggerRecord[]> {
    const now = Date.now();
    this.db.transaction(() => {
      const have = this.db.prepare("SELECT * FROM triggers WHERE app_id = ?").all(appId) as TriggerRow[];
      const wanted = new Set(nodes.map(nodeKey));
      for (const r of have) {
        if (wanted.has(nodeKey({ type: r.type, nodeId: r.node_id }))) continue;
        this.db.prepare("DELETE FROM trigger_deliveries WHERE trigger_id = ?").run(r.id);
        this.db.prepare("DELETE FROM triggers WHERE id = ?").run(r.id);
      }
      const insert = this.db.prepare(
        `INSERT INTO triggers (id, type, app_id, node_id, enabled, created_at, updated_at) VALUES (?,?,?,?,1,?,?)
         ON CONFLICT (app_id, type, node_id) DO NOTHING`,
      );
      for (const n of nodes) insert.run(mint(), n.type, appId, n.nodeId, now, now);
    })();
    return this.list(appId);
  }

  async get(id: string): Promise<TriggerRecord | undefined> {
    const r = this.db.prepare("SELECT * FROM triggers WHERE id = ?").get(id) as TriggerRow | undefined;
    return r && toTrigger(r);
  }

  async list(appId?: string): Promise<TriggerRecord[]> {
    const rows = (
      appId === undefined
        ? this.db.prepare("SELECT * FROM triggers ORDER BY created_at, id").all()
        : this.db.prepare("SELECT * FROM triggers WHERE app_id = ? ORDER BY created_at, id").all(appId)
    ) as TriggerRow[];
    return rows.map(toTrigger);
  }

  async setEnabled(id: string, enabled: boolean): Promise<TriggerRecord | undefined> {
    this.db
      .prepare("UPDATE triggers SET enabled = ?, updated_at = ? WHERE id = ?")
      .run(enabled ? 1 : 0, Date.now(), id);
    return this.get(id);
  }

  async deleteApp(appId: string): Promise<void> {
    this.db.transaction(() => {
      this.db
        .prepare("DELETE FROM trigger_deliveries WHERE trigger_id IN (SELECT id FROM triggers WHERE app_id = ?)")
        .run(appId);
      this.db.prepare("DELETE FROM triggers WHERE app_id = ?").run(appId);
    })();
  }

  async recordDelivery(d: DeliveryRecord): Promise<{ delivery: DeliveryRecord; fresh: boolean }> {
    const inserted = this.db
      .prepare(
        `INSERT INTO trigger_deliveries (id, trigger_id, idempotency_key, run_id, status, received_at, state, payload, claimed_at)
         VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT DO NOTHING`,
      )
      .run(...deliveryParams(d));
    if (inserted.changes === 1) return { delivery: { ...d, state: d.state ?? "started" }, fresh: true };
    const r = this.db
      .prepare("SELECT * FROM trigger_deliveries WHERE trigger_id = ? AND idempotency_key = ?")
      .get(d.triggerId, d.idempotencyKey ?? null) as DeliveryRow | undefined;
    if (!r) throw new Error(`delivery ${d.id} was neither stored nor found`);
    return { delivery: toDelivery(r), fresh: false };
  }

  async settleDelivery(id: string, outcome: { state: "started" } | { state: "failed"; error: string }): Promise<void> {
    this.db
      .prepare("UPDATE trigger_deliveries SET state = ?, payload = NULL, error = ? WHERE id = ?")
      .run(outcome.state, outcome.state === "failed" ? outcome.error : null, id);
  }

  async claimDelivery(id: string, now: number, staleBefore: number): Promise<boolean> {
    const r = this.db
      .prepare(
        `UPDATE trigger_deliveries SET claimed_at = ?
         WHERE id = ? AND state = 'accepted' AND (claimed_at IS NULL OR claimed_at < ?)`,
      )
      .run(now, id, staleBefore);
    return r.changes === 1;
  }

  async acceptedDeliveries(receivedBefore: number, limit = 100): Promise<DeliveryRecord[]> {
    const rows = this.db
      .prepare(
        "SELECT * FROM trigger_deliveries WHERE state = 'accepted' AND received_at < ? ORDER BY received_at, id LIMIT ?",
      )
      .all(receivedBefore, limit) as DeliveryRow[];
    return rows.map(toDelivery);
  }

  async deliveries(triggerId: string, limit = 20): Promise<DeliveryRecord[]> {
    const rows = this.db
      .prepare("SELECT * FROM trigger_deliveries WHERE trigger_id = ? ORDER BY received_at DESC, id DESC LIMIT ?")
      .all(triggerId, limit) as DeliveryRow[];
    return rows.map(toDelivery);
  }

  async countDeliveries(triggerId?: string): Promise<number> {
    const r = (
      triggerId === undefined
        ? this.db.prepare("SELECT COUNT(*) AS n FROM trigger_deliveries").get()
        : this.db.prepare("SELECT COUNT(*) AS n FROM trigger_deliveries WHERE trigger_id = ?").get(triggerId)
    ) as { n: number };
    return r.n;
  }
}
