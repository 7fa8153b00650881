import { ulid } from "ulid";
import type { ConversationRecord, ConversationStore } from "../conversations.js";

/** In-process conversations (nothing survives the process); same contract as the SQLite store. */
export class MemoryConversationStore implements ConversationStore {
  private rows = new Map<string, ConversationRecord>();

  async create(appId: string): Promise<ConversationRecord> {
    const now = Date.now();
    const rec: ConversationRecord = {
      id: ulid(),
      appId,
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

  async finishTurn(id: string, variables: Record<string, unknown>): Promise<void> {
    const r = this.rows.get(id);
    if (!r) return;
    r.variables = structuredClone(variables);
    r.dialogueCount += 1;
    r.updatedAt = Date.now();
  }

  async deleteApp(appId: string): Promise<void> {
    for (const [id, r] of this.rows) if (r.appId === appId) this.rows.delete(id);
  }
}
