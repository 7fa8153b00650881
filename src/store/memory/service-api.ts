import { ulid } from "ulid";
import { hashKey, newAppKey } from "../keys.js";
import type {
  AppKeyRecord,
  ConversationRecord,
  ConversationSort,
  Page,
  ServiceApiStore,
  ServiceMessageRecord,
  ServiceRunRecord,
  UploadRecord,
} from "../service-api.js";

/** Sort key of a conversation: time first, id to break ties, as the SQL store orders. */
function compareConversations(sort: ConversationSort): (a: ConversationRecord, b: ConversationRecord) => number {
  const field = sort.replace(/^-/, "") === "created_at" ? "createdAt" : "updatedAt";
  const dir = sort.startsWith("-") ? -1 : 1;
  return (a, b) => dir * (a[field] - b[field] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const byTime = (a: ServiceMessageRecord, b: ServiceMessageRecord) =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** In-process service API store (nothing survives the process); same contract as the SQLite store. */
export class MemoryServiceApiStore implements ServiceApiStore {
  private keys = new Map<string, AppKeyRecord & { hash: string }>();
  private runs = new Map<string, ServiceRunRecord>();
  private conversations = new Map<string, ConversationRecord>();
  private messages = new Map<string, ServiceMessageRecord>();
  private uploads = new Map<string, UploadRecord>();

  async createAppKey(appId: string): Promise<{ id: string; key: string }> {
    const id = ulid();
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
    this.runs.set(r.runId, structuredClone(r));
  }
  async serviceRun(runId: string): Promise<ServiceRunRecord | undefined> {
    const r = this.runs.get(runId);
    return r ? structuredClone(r) : undefined;
  }

  async createConversation(c: ConversationRecord): Promise<void> {
    this.conversations.set(c.id, structuredClone(c));
  }
  async getConversation(id: string): Promise<ConversationRecord | undefined> {
    const c = this.conversations.get(id);
    return c ? structuredClone(c) : undefined;
  }
  async listConversations(
    appId: string,
    user: string,
    o: { lastId?: string; limit: number; sort?: ConversationSort },
  ): Promise<Page<ConversationRecord> | undefined> {
    const mine = [...this.conversations.values()]
      .filter((c) => c.appId === appId && c.user === user)
      .sort(compareConversations(o.sort ?? "-updated_at"));
    let from = 0;
    if (o.lastId !== undefined) {
      const i = mine.findIndex((c) => c.id === o.lastId);
      if (i < 0) return undefined;
      from = i + 1;
    }
    const data = mine.slice(from, from + o.limit);
    return { data: structuredClone(data), hasMore: mine.length > from + o.limit };
  }
  async updateConversation(
    id: string,
    patch: Partial<Pick<ConversationRecord, "name" | "variables" | "updatedAt">>,
  ): Promise<void> {
    const c = this.conversations.get(id);
    if (c) Object.assign(c, structuredClone(patch));
  }
  async deleteConversation(id: string): Promise<boolean> {
    for (const [mid, m] of this.messages) if (m.conversationId === id) this.messages.delete(mid);
    return this.conversations.delete(id);
  }

  async addMessage(m: ServiceMessageRecord): Promise<void> {
    this.messages.set(m.id, structuredClone(m));
  }
  async getMessage(id: string): Promise<ServiceMessageRecord | undefined> {
    const m = this.messages.get(id);
    return m ? structuredClone(m) : undefined;
  }
  async updateMessage(
    id: string,
    patch: Partial<Pick<ServiceMessageRecord, "answer" | "status" | "error" | "updatedAt">>,
  ): Promise<void> {
    const m = this.messages.get(id);
    if (m) Object.assign(m, structuredClone(patch));
  }
  async listMessages(
    conversationId: string,
    o: { firstId?: string; limit: number },
  ): Promise<Page<ServiceMessageRecord> | undefined> {
    const all = await this.conversationMessages(conversationId);
    let end = all.length;
    if (o.firstId !== undefined) {
      end = all.findIndex((m) => m.id === o.firstId);
      if (end < 0) return undefined;
    }
    const start = Math.max(0, end - o.limit);
    return { data: all.slice(start, end), hasMore: start > 0 };
  }
  async conversationMessages(conversationId: string): Promise<ServiceMessageRecord[]> {
    return structuredClone([...this.messages.values()].filter((m) => m.conversationId === conversationId).sort(byTime));
  }

  async putUpload(u: UploadRecord): Promise<void> {
    this.uploads.set(u.id, structuredClone(u));
  }
  async getUpload(id: string): Promise<UploadRecord | undefined> {
    const u = this.uploads.get(id);
    return u ? structuredClone(u) : undefined;
  }
}
