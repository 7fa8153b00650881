import { newId } from "../../util/ids.js";
import type {
  ConversationMessage,
  ConversationRecord,
  ConversationSort,
  ConversationStore,
  NewConversation,
  Page,
} from "../conversations.js";

/** Sort key of a conversation: time first, id to break ties, as the SQL store orders. */
function compareConversations(sort: ConversationSort): (a: ConversationRecord, b: ConversationRecord) => number {
  const field = sort.replace(/^-/, "") === "created_at" ? "createdAt" : "updatedAt";
  const dir = sort.startsWith("-") ? -1 : 1;
  return (a, b) => dir * (a[field] - b[field] || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const byTime = (a: ConversationMessage, b: ConversationMessage) =>
  a.createdAt - b.createdAt || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

/** In-process conversations (nothing survives the process); same contract as the SQLite store. */
export class MemoryConversationStore implements ConversationStore {
  private rows = new Map<string, ConversationRecord>();
  private msgs = new Map<string, ConversationMessage>();

  async create(appId: string, o: NewConversation = {}): Promise<ConversationRecord> {
    const now = Date.now();
    const rec: ConversationRecord = {
      id: newId(),
      appId,
      user: o.user ?? "",
      name: o.name ?? "",
      inputs: structuredClone(o.inputs ?? {}),
      variables: {},
      dialogueCount: 0,
      createdAt: now,
      updatedAt: now,
    };
    this.rows.set(rec.id, rec);
    return structuredClone(rec);
  }

  async get(id: string): Promise<ConversationRecord | undefined> {
    const r = this.rows.get(id);
    return r && structuredClone(r);
  }

  async list(
    appId: string,
    user: string,
    o: { lastId?: string; limit: number; sort?: ConversationSort },
  ): Promise<Page<ConversationRecord> | undefined> {
    const mine = [...this.rows.values()]
      .filter((c) => c.appId === appId && c.user === user)
      .sort(compareConversations(o.sort ?? "-updated_at"));
    let from = 0;
    if (o.lastId !== undefined) {
      const i = mine.findIndex((c) => c.id === o.lastId);
      if (i < 0) return undefined;
      from = i + 1;
    }
    return { data: structuredClone(mine.slice(from, from + o.limit)), hasMore: mine.length > from + o.limit };
  }

  async finishTurn(id: string, variables: Record<string, unknown>): Promise<void> {
    const r = this.rows.get(id);
    if (!r) return;
    r.variables = structuredClone(variables);
    r.dialogueCount += 1;
    r.updatedAt = Date.now();
  }

  async rename(id: string, name: string): Promise<void> {
    const r = this.rows.get(id);
    if (!r) return;
    r.name = name;
    r.updatedAt = Date.now();
  }

  async delete(id: string): Promise<boolean> {
    for (const [mid, m] of this.msgs) if (m.conversationId === id) this.msgs.delete(mid);
    return this.rows.delete(id);
  }

  async deleteApp(appId: string): Promise<void> {
    for (const [id, r] of this.rows) if (r.appId === appId) await this.delete(id);
  }

  async addMessage(m: ConversationMessage): Promise<void> {
    this.msgs.set(m.id, structuredClone(m));
  }

  async getMessage(id: string): Promise<ConversationMessage | undefined> {
    const m = this.msgs.get(id);
    return m && structuredClone(m);
  }

  async updateMessage(
    id: string,
    patch: Partial<Pick<ConversationMessage, "answer" | "status" | "error" | "updatedAt">>,
  ): Promise<void> {
    const m = this.msgs.get(id);
    if (m) Object.assign(m, structuredClone(patch));
  }

  async listMessages(
    conversationId: string,
    o: { firstId?: string; limit: number },
  ): Promise<Page<ConversationMessage> | undefined> {
    const all = await this.messages(conversationId);
    let end = all.length;
    if (o.firstId !== undefined) {
      end = all.findIndex((m) => m.id === o.firstId);
      if (end < 0) return undefined;
    }
    const start = Math.max(0, end - o.limit);
    return { data: all.slice(start, end), hasMore: start > 0 };
  }

  async messages(conversationId: string): Promise<ConversationMessage[]> {
    return structuredClone([...this.msgs.values()].filter((m) => m.conversationId === conversationId).sort(byTime));
  }
}
