import { randomUUID } from "node:crypto";
import { type AuditEntry, type AuditQuery, type AuditStore, auditLimit, type NewAuditEntry } from "../audit.js";

export class MemoryAuditStore implements AuditStore {
  private entries: AuditEntry[] = [];

  async record(e: NewAuditEntry): Promise<AuditEntry> {
    const rec: AuditEntry = structuredClone({ ...e, id: randomUUID(), at: e.at ?? Date.now() });
    this.entries.push(rec);
    return structuredClone(rec);
  }

  async list(q: AuditQuery): Promise<AuditEntry[]> {
    return this.entries
      .map((e, i) => ({ e, i }))
      .filter(({ e }) => (q.workspaceId === undefined || e.workspaceId === q.workspaceId) && e.at >= (q.since ?? 0))
      .sort((a, b) => b.e.at - a.e.at || b.i - a.i)
      .slice(0, auditLimit(q))
      .map(({ e }) => structuredClone(e));
  }

  async prune(before: number): Promise<number> {
    const n = this.entries.length;
    this.entries = this.entries.filter((e) => e.at >= before);
    return n - this.entries.length;
  }
}
