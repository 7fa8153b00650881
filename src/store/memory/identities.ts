import type { IdentityRecord, IdentityStore } from "../identities.js";

const key = (issuer: string, subject: string) => `${issuer}\u0000${subject}`;

export class MemoryIdentityStore implements IdentityStore {
  private readonly rows = new Map<string, IdentityRecord>();

  async get(issuer: string, subject: string): Promise<IdentityRecord | undefined> {
    const r = this.rows.get(key(issuer, subject));
    return r && { ...r };
  }

  async link(i: Omit<IdentityRecord, "createdAt">): Promise<IdentityRecord> {
    const k = key(i.issuer, i.subject);
    if (!this.rows.has(k)) this.rows.set(k, { ...i, createdAt: Date.now() });
    return { ...this.rows.get(k)! };
  }

  async ofUser(userId: string): Promise<IdentityRecord[]> {
    return [...this.rows.values()].filter((r) => r.userId === userId).map((r) => ({ ...r }));
  }
}
