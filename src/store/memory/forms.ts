import type { FormOutcome, FormRecord, FormStore } from "../forms.js";

/** In-process form store (nothing survives the process); same contract as the SQLite store. */
export class MemoryFormStore implements FormStore {
  private forms = new Map<string, FormRecord>();

  private find(pred: (f: FormRecord) => boolean): FormRecord | undefined {
    for (const f of this.forms.values()) if (pred(f)) return structuredClone(f);
    return undefined;
  }

  async createForm(form: FormRecord): Promise<FormRecord> {
    const prior = this.find((f) => f.runId === form.runId && f.key === form.key);
    if (prior) return prior;
    this.forms.set(form.id, structuredClone(form));
    return structuredClone(form);
  }
  async getForm(id: string): Promise<FormRecord | undefined> {
    const f = this.forms.get(id);
    return f ? structuredClone(f) : undefined;
  }
  async formByToken(token: string): Promise<FormRecord | undefined> {
    return this.find((f) => f.token === token);
  }
  async formOf(runId: string, key: string): Promise<FormRecord | undefined> {
    return this.find((f) => f.runId === runId && f.key === key);
  }
  async runForms(runId: string): Promise<FormRecord[]> {
    return structuredClone([...this.forms.values()].filter((f) => f.runId === runId));
  }
  async waitingForms(): Promise<FormRecord[]> {
    return structuredClone([...this.forms.values()].filter((f) => f.status === "waiting"));
  }
  async closeForm(id: string, outcome: FormOutcome, at: number): Promise<FormRecord | undefined> {
    const f = this.forms.get(id);
    if (!f) return undefined;
    if (f.status === "waiting") {
      f.status = outcome.status;
      f.closedAt = at;
      if (outcome.status === "submitted") f.submission = structuredClone(outcome.submission);
    }
    return structuredClone(f);
  }
}
