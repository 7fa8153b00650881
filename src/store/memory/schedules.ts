import type { ScheduleFire, ScheduleIdentity, ScheduleState, ScheduleStore } from "../schedules.js";

/** Schedule bookkeeping in this process (gone when it ends). */
export class MemoryScheduleStore implements ScheduleStore {
  private states = new Map<string, ScheduleState>();
  private fired = new Map<string, ScheduleFire>();

  async get(key: string): Promise<ScheduleState | undefined> {
    const s = this.states.get(key);
    return s ? { ...s } : undefined;
  }

  async list(): Promise<ScheduleState[]> {
    return [...this.states.values()]
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((s) => ({ ...s }));
  }

  async sync(s: ScheduleIdentity & { cron: string; timezone: string }, baseline: number, now: number) {
    const had = this.states.get(s.key);
    if (!had || had.cron !== s.cron || had.timezone !== s.timezone)
      this.states.set(s.key, { ...s, lastTick: baseline, updatedAt: now });
    return { ...this.states.get(s.key)! };
  }

  async advance(key: string, tick: number, now: number, fire?: { runId: string }): Promise<boolean> {
    const s = this.states.get(key);
    if (!s || s.lastTick >= tick) return false;
    s.lastTick = tick;
    s.updatedAt = now;
    if (fire) this.fired.set(`${key}\u0000${tick}`, { key, tick, runId: fire.runId, claimedAt: now });
    return true;
  }

  async markDispatched(key: string, tick: number, now: number): Promise<void> {
    const f = this.fired.get(`${key}\u0000${tick}`);
    if (f && f.dispatchedAt === undefined) f.dispatchedAt = now;
  }

  async undispatched(claimedBefore: number): Promise<ScheduleFire[]> {
    return [...this.fired.values()]
      .filter((f) => f.dispatchedAt === undefined && f.claimedAt < claimedBefore)
      .sort((a, b) => a.claimedAt - b.claimedAt || a.tick - b.tick)
      .map((f) => ({ ...f }));
  }

  async reclaim(key: string, tick: number, claimedAt: number, now: number): Promise<boolean> {
    const f = this.fired.get(`${key}\u0000${tick}`);
    if (!f || f.dispatchedAt !== undefined || f.claimedAt !== claimedAt) return false;
    f.claimedAt = now;
    return true;
  }

  async fires(key: string, limit: number): Promise<ScheduleFire[]> {
    return [...this.fired.values()]
      .filter((f) => f.key === key)
      .sort((a, b) => b.tick - a.tick)
      .slice(0, limit)
      .map((f) => ({ ...f }));
  }

  async remove(key: string): Promise<void> {
    this.states.delete(key);
  }
}
