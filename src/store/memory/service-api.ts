import { newId } from "../../util/ids.js";
import { hashKey, newAppKey } from "../keys.js";
import type { AppKeyRecord, ServiceApiStore, ServiceRunRecord, UploadRecord } from "../service-api.js";

/** In-process service API store (nothing survives the process); same contract as the SQLite store. */
export class MemoryServiceApiStore implements ServiceApiStore {
  private keys = new Map<string, AppKeyRecord & { hash: string }>();
  private runs = new Map<string, ServiceRunRecord>();
  private uploads = new Map<string, UploadRecord>();

  async createAppKey(appId: string): Promise<{ id: string; key: string }> {
    const id = newId();
    const key = newAppKey();
    this.keys.set(id, { id, appId, createdAt: Date.now(), hash: hashKey(key) });
    return { id, key };
  }
  async appOfKey(key: string): Promise<string | undefined> {
    const h = hashKey(key);
    for (const k of this.keys.values()) if (k.hash === h) return k.appId;
    return undefined;
  }
  async listAppKeys(appId?: string): Promise<AppKeyRecord[]> {
    return [...this.keys.values()]
      .filter((k) => appId === undefined || k.appId === appId)
      .map(({ id, appId: a, createdAt }) => ({ id, appId: a, createdAt }));
  }
  async revokeAppKey(id: string): Promise<boolean> {
    return this.keys.delete(id);
  }

  async recordRun(r: ServiceRunRecord): Promise<void> {
    this.runs.set(r.runId, structuredClone({ ...r, files: r.files ?? [] }));
  }
  async serviceRun(runId: string): Promise<ServiceRunRecord | undefined> {
    const r = this.runs.get(runId);
    return r ? structuredClone(r) : undefined;
  }

  async putUpload(u: UploadRecord): Promise<void> {
    this.uploads.set(u.id, structuredClone(u));
  }
  async getUpload(id: string): Promise<UploadRecord | undefined> {
    const u = this.uploads.get(id);
    return u ? structuredClone(u) : undefined;
  }
}
