import type { AppTestStore } from "./app-tests.js";
import type { AppStore } from "./apps.js";
import type { AuditStore } from "./audit.js";
import type { ConversationStore } from "./conversations.js";
import type { EnvStore } from "./env.js";
import type { FormStore } from "./forms.js";
import type { IdentityStore } from "./identities.js";
import type { InviteStore } from "./invites.js";
import type { KnowledgeStore } from "./knowledge.js";
import type { RunLog } from "./runlog.js";
import type { RunStore } from "./runs.js";
import type { ScheduleStore } from "./schedules.js";
import type { ServiceApiStore } from "./service-api.js";
import type { TeamStore } from "./teams.js";
import type { TriggerStore } from "./triggers.js";

/** Every store of one database: what commands, the server and workers open from `--db` / config `db`. */
export interface Stores {
  runs: RunStore;
  /** Where runs came from, filtered and searched lists of them, retention. */
  runLog: RunLog;
  apps: AppStore;
  /** Knowledge bases (documents, chunks, full-text index, embeddings). */
  knowledge: KnowledgeStore;
  /** Pending human-input forms of paused runs. */
  forms: FormStore;
  /** The Dify-compatible service API's app keys, end-user runs and uploads. */
  service: ServiceApiStore;
  /** Chat apps' conversations (studio and service API) and their messages. */
  conversations: ConversationStore;
  /** Per-app environment variable values (secrets sealed). */
  env: EnvStore;
  /** Schedule triggers' last ticks and fired ticks (src/triggers/schedule/). */
  schedules: ScheduleStore;
  /** Triggers of published apps (webhooks, schedules) and webhook deliveries. */
  triggers: TriggerStore;
  /** Users, workspaces, memberships, sessions and which workspace owns an app or a knowledge base. */
  teams: TeamStore;
  /** Outside sign-ins (OIDC issuer + subject) and the account each is. */
  identities: IdentityStore;
  /** Who changed what, when, with which key or session. */
  audit: AuditStore;
  /** Invitations to workspaces and the first-run setup link. */
  invites: InviteStore;
  /** Apps' own test cases, their publish gate settings and overrides, cached model answers. */
  appTests: AppTestStore;
  /** Which backend the specifier named. */
  readonly kind: StoreKind;
  /** Closes the database; the stores must not be used afterwards. */
  close(): Promise<void>;
}

export type StoreKind = "memory" | "sqlite" | "postgres";
