export interface ConversationRecord {
  id: string;
  appId: string;
  /** Values after the last finished turn; a variable absent here starts from the workflow's default. */
  variables: Record<string, unknown>;
  dialogueCount: number;
  createdAt: number;
  updatedAt: number;
}

/**
 * Chat conversations of advanced-chat apps: the conversation variables and the dialogue count that carry
 * from one run (turn) to the next, as Dify keeps them per conversation. Implemented in memory and on SQLite.
 */
export interface ConversationStore {
  create(appId: string): Promise<ConversationRecord>;
  get(id: string): Promise<ConversationRecord | undefined>;
  /** Record a finished turn: the variables as the run left them, one more dialogue. */
  finishTurn(id: string, variables: Record<string, unknown>): Promise<void>;
  deleteApp(appId: string): Promise<void>;
}
