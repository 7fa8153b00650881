import type { InviteRecord, InviteStore, NewInvite } from "../invites.js";

export class MemoryInviteStore implements InviteStore {
  private rows = new Map<string, InviteRecord>();

  async create(i: NewInvite): Promise<void> {
    this.rows.set(i.tokenHash, structuredClone(i));
  }

  async get(tokenHash: string): Promise<InviteRecord | undefined> {
    const r = this.rows.get(tokenHash);
    return r && structuredClone(r);
  }

  async use(tokenHash: string, userId: string, now = Date.now()): Promise<boolean> {
    const r = this.rows.get(tokenHash);
    if (!r || r.usedAt !== undefined || r.expiresAt <= now) return false;
    r.usedAt = now;
    r.usedBy = userId;
    return true;
  }

  async pending(workspaceId: string, now = Date.now()): Promise<InviteRecord[]> {
    return [...this.rows.values()]
      .filter(
        (r) => r.workspaceId === workspaceId && r.purpose === "invite" && r.usedAt === undefined && r.expiresAt > now,
      )
      .sort((a, b) => b.createdAt - a.createdAt)
      .map((r) => structuredClone(r));
  }

  async revoke(workspaceId: string, id: string): Promise<boolean> {
    for (const [k, r] of this.rows)
      if (r.id === id && r.workspaceId === workspaceId && r.usedAt === undefined) return this.rows.delete(k);
    return false;
  }
}
