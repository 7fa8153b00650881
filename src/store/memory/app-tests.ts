import type { AppTestSettings, AppTestStore, GateOverrideRecord, TestCaseRecord } from "../app-tests.js";

const key = (appId: string, id: string) => `${appId}\u0000${id}`;

/** Test cases, settings, overrides and cached model answers in this process (gone when it ends). */
export class MemoryAppTestStore implements AppTestStore {
  private cases = new Map<string, TestCaseRecord>();
  private settingsByApp = new Map<string, AppTestSettings>();
  private overridesList: GateOverrideRecord[] = [];
  private answers = new Map<string, unknown>();

  async addCase(rec: TestCaseRecord): Promise<boolean> {
    const k = key(rec.appId, rec.id);
    if (this.cases.has(k)) return false;
    this.cases.set(k, structuredClone(rec));
    return true;
  }

  async getCase(appId: string, id: string): Promise<TestCaseRecord | undefined> {
    const r = this.cases.get(key(appId, id));
    return r ? structuredClone(r) : undefined;
  }

  async listCases(appId: string): Promise<TestCaseRecord[]> {
    return [...this.cases.values()]
      .filter((r) => r.appId === appId)
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map((r) => structuredClone(r));
  }

  async updateCase(rec: TestCaseRecord): Promise<boolean> {
    const k = key(rec.appId, rec.id);
    if (!this.cases.has(k)) return false;
    this.cases.set(k, structuredClone(rec));
    return true;
  }

  async deleteCase(appId: string, id: string): Promise<boolean> {
    return this.cases.delete(key(appId, id));
  }

  async settings(appId: string): Promise<AppTestSettings | undefined> {
    const s = this.settingsByApp.get(appId);
    return s ? { ...s } : undefined;
  }

  async putSettings(s: AppTestSettings): Promise<void> {
    this.settingsByApp.set(s.appId, { ...s });
  }

  async recordOverride(o: GateOverrideRecord): Promise<void> {
    this.overridesList.push(structuredClone(o));
  }

  async overrides(appId: string): Promise<GateOverrideRecord[]> {
    return this.overridesList
      .filter((o) => o.appId === appId)
      .sort((a, b) => b.at - a.at || (a.id < b.id ? 1 : -1))
      .map((o) => structuredClone(o));
  }

  async deleteApp(appId: string): Promise<void> {
    for (const [k, r] of this.cases) if (r.appId === appId) this.cases.delete(k);
    this.settingsByApp.delete(appId);
    this.overridesList = this.overridesList.filter((o) => o.appId !== appId);
  }

  async cachedAnswer(k: string): Promise<unknown | undefined> {
    return this.answers.has(k) ? structuredClone(this.answers.get(k)) : undefined;
  }

  async cacheAnswer(k: string, answer: unknown): Promise<void> {
    if (!this.answers.has(k)) this.answers.set(k, structuredClone(answer));
  }
}
