import type { DeliveryRecord, TriggerNodeRef, TriggerRecord, TriggerStore } from "../triggers.js";

/** Triggers and webhook deliveries in process; same contract as the SQL stores. */
export class MemoryTriggerStore implements TriggerStore {
  private rows = new Map<string, TriggerRecord>();
  private deliveriesOf = new Map<string, DeliveryRecord[]>();

  async sync(appId: string, nodes: readonly TriggerNodeRef[], mint: () => string): Promise<TriggerRecord[]> {
    const now = Date.now();
    const have = [...this.rows.values()].filter((r) => r.appId === appId);
    const key = (n: TriggerNodeRef) => `${n.type}\u0000${n.nodeId}`;
    const wanted = new Set(nodes.map(key));
    for (const r of have) {
      if (!wanted.has(key(r))) {
        this.rows.delete(r.id);
        this.deliveriesOf.delete(r.id);
      }
    }
    const kept = new Set(have.filter((r) => wanted.has(key(r))).map(key));
    for (const n of nodes) {
      if (kept.has(key(n))) continue;
      kept.add(key(n));
      const id = mint();
      this.rows.set(id, { id, type: n.type, appId, nodeId: n.nodeId, enabled: true, createdAt: now, updatedAt: now });
    }
    return this.list(appId);
  }

  async get(id: string): Promise<TriggerRecord | undefined> {
    const r = this.rows.get(id);
    return r && { ...r };
  }

  async list(appId?: string): Promise<TriggerRecord[]> {
    return [...this.rows.values()]
      .filter((r) => appId === undefined || r.appId === appId)
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1))
      .map((r) => ({ ...r }));
  }

  async setEnabled(id: string, enabled: boolean): Promise<TriggerRecord | undefined> {
    const r = this.rows.get(id);
    if (!r) return undefined;
    r.enabled = enabled;
    r.updatedAt = Date.now();
    return { ...r };
  }

  async deleteApp(appId: string): Promise<void> {
    for (const r of [...this.rows.values()]) {
      if (r.appId !== appId) continue;
      this.rows.delete(r.id);
      this.deliveriesOf.delete(r.id);
    }
  }

  async recordDelivery(d: DeliveryRecord): Promise<{ delivery: DeliveryRecord; fresh: boolean }> {
    const list = this.deliveriesOf.get(d.triggerId) ?? [];
    const seen = d.idempotencyKey !== undefined ? list.find((x) => x.idempotencyKey === d.idempotencyKey) : undefined;
    if (seen) return { delivery: { ...seen }, fresh: false };
    list.push({ ...d, state: d.state ?? "started" });
    this.deliveriesOf.set(d.triggerId, list);
    return { delivery: { ...d, state: d.state ?? "started" }, fresh: true };
  }

  async settleDelivery(id: string, outcome: { state: "started" } | { state: "failed"; error: string }): Promise<void> {
    for (const list of this.deliveriesOf.values()) {
      const i = list.findIndex((d) => d.id === id);
      if (i < 0) continue;
      const { payload: _dropped, ...rest } = list[i]!;
      list[i] = { ...rest, ...outcome };
      return;
    }
  }

  async claimDelivery(id: string, now: number, staleBefore: number): Promise<boolean> {
    for (const list of this.deliveriesOf.values()) {
      const d = list.find((x) => x.id === id);
      if (!d) continue;
      if (d.state !== "accepted" || (d.claimedAt !== undefined && d.claimedAt >= staleBefore)) return false;
      d.claimedAt = now;
      return true;
    }
    return false;
  }

  async acceptedDeliveries(receivedBefore: number, limit = 100): Promise<DeliveryRecord[]> {
    return [...this.deliveriesOf.values()]
      .flat()
      .filter((d) => d.state === "accepted" && d.receivedAt < receivedBefore)
      .sort((a, b) => a.receivedAt - b.receivedAt || (a.id < b.id ? -1 : 1))
      .slice(0, limit)
      .map((d) => ({ ...d }));
  }

  async deliveries(triggerId: string, limit = 20): Promise<DeliveryRecord[]> {
    const list = this.deliveriesOf.get(triggerId) ?? [];
    return list
      .slice()
      .sort((a, b) => b.receivedAt - a.receivedAt || (a.id < b.id ? 1 : -1))
      .slice(0, limit)
      .map((d) => ({ ...d }));
  }

  async countDeliveries(triggerId?: string): Promise<number> {
    if (triggerId !== undefined) return this.deliveriesOf.get(triggerId)?.length ?? 0;
    let n = 0;
    for (const l of this.deliveriesOf.values()) n += l.length;
    return n;
  }
}
