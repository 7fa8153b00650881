import type { AppStore } from "./apps.js";
import type { ConversationStore } from "./conversations.js";
import type { RunStore } from "./runs.js";

/** Every store of one database: what commands, the server and workers open from `--db` / config `db`. */
export interface Stores {
  runs: RunStore;
  apps: AppStore;
  /** Chat apps' conversations: the variables carried from one turn to the next. */
  conversations: ConversationStore;
  /** Which backend the specifier named. */
  readonly kind: StoreKind;
  /** Closes the database; the stores must not be used afterwards. */
  close(): Promise<void>;
}

export type StoreKind = "memory" | "sqlite" | "postgres";
