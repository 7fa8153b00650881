import type { EnvRecord, EnvStore } from "../env.js";

const key = (appId: string, name: string) => `${appId}\u0000${name}`;

/** Environment variable values in this process (gone when it ends). */
export class MemoryEnvStore implements EnvStore {
  private rows = new Map<string, EnvRecord>();

  async list(appId: string): Promise<EnvRecord[]> {
    return [...this.rows.values()]
      .filter((r) => r.appId === appId)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
      .map((r) => structuredClone(r));
  }

  async get(appId: string, name: string): Promise<EnvRecord | undefined> {
    const r = this.rows.get(key(appId, name));
    return r ? structuredClone(r) : undefined;
  }

  async put(rec: EnvRecord): Promise<void> {
    this.rows.set(key(rec.appId, rec.name), structuredClone(rec));
  }

  async delete(appId: string, name: string): Promise<boolean> {
    return this.rows.delete(key(appId, name));
  }

  async deleteApp(appId: string): Promise<void> {
    for (const [k, r] of this.rows) if (r.appId === appId) this.rows.delete(k);
  }

  async secrets(): Promise<EnvRecord[]> {
    return [...this.rows.values()].filter((r) => r.type === "secret").map((r) => structuredClone(r));
  }

  async reseal(recs: EnvRecord[]): Promise<void> {
    for (const r of recs) {
      const k = key(r.appId, r.name);
      const had = this.rows.get(k);
      if (had?.type === "secret" && r.sealed) this.rows.set(k, { ...had, sealed: { ...r.sealed } });
    }
  }
}
