import type { Stores } from "../stores.js";
import { MemoryAppTestStore } from "./app-tests.js";
import { MemoryAppStore } from "./apps.js";
import { MemoryAuditStore } from "./audit.js";
import { MemoryConversationStore } from "./conversations.js";
import { MemoryEnvStore } from "./env.js";
import { MemoryFormStore } from "./forms.js";
import { MemoryIdentityStore } from "./identities.js";
import { MemoryInviteStore } from "./invites.js";
import { LazyMemoryKnowledgeStore } from "./knowledge.js";
import { MemoryRunLog } from "./runlog.js";
import { MemoryRunStore } from "./runs.js";
import { MemoryScheduleStore } from "./schedules.js";
import { MemoryServiceApiStore } from "./service-api.js";
import { MemoryTeamStore } from "./teams.js";
import { MemoryTriggerStore } from "./triggers.js";

/** The in-process stores of `:memory:` (see ../open.ts), gone when the process ends. */
export function openMemoryStores(): Stores {
  // Full-text search is SQLite's FTS5 even in memory: an in-process database, opened on first use, that ends
  // with the stores.
  const knowledge = new LazyMemoryKnowledgeStore();
  const runs = new MemoryRunStore();
  return {
    kind: "memory",
    runs,
    runLog: new MemoryRunLog(runs),
    apps: new MemoryAppStore(),
    forms: new MemoryFormStore(),
    service: new MemoryServiceApiStore(),
    conversations: new MemoryConversationStore(),
    env: new MemoryEnvStore(),
    schedules: new MemoryScheduleStore(),
    triggers: new MemoryTriggerStore(),
    teams: new MemoryTeamStore(),
    identities: new MemoryIdentityStore(),
    audit: new MemoryAuditStore(),
    invites: new MemoryInviteStore(),
    appTests: new MemoryAppTestStore(),
    knowledge,
    close: () => knowledge.close(),
  };
}
