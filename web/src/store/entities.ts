import type { ReviewView } from "../review/view";
import type {
  AttemptRecord,
  Diagnostic,
  ProposalDecision,
  ProposalView,
  RunEvent,
  TurnOutcome,
  Workflow,
} from "../types";

export type NodeStatus = "running" | "succeeded" | "failed" | "exception" | "skipped" | "paused";

export interface ChatEntry {
  role: "user" | "assistant" | "tool" | "error";
  text: string;
  /** What the turn really did (assistant replies). */
  outcome?: TurnOutcome;
  /** The reply says or implies a change that was not made. */
  notApplied?: boolean;
  /** What became of the turn's proposal since: applied, rejected, superseded, undone. */
  decision?: ProposalDecision;
}

/** A proposal shown on the canvas instead of the draft until it is applied, rejected or put aside. */
export interface Review {
  proposal: ProposalView;
  view: ReviewView;
  /** Ports of the proposed workflow (and of the removed nodes), for the canvas's handles. */
  ports: Record<string, string[]>;
  /** Put aside: the canvas shows the draft again, the proposal stays pending. */
  hidden: boolean;
  busy: boolean;
  /** Why the last apply was refused (nothing changed). */
  refusal?: { text: string; diagnostics: Diagnostic[] };
}

export interface RunState {
  runId?: string;
  status?: string;
  statuses: Record<string, NodeStatus>;
  events: RunEvent[];
  outputs?: Record<string, unknown>;
  error?: { code: string; message: string; nodeId?: string };
  trace: AttemptRecord[];
  /** The workflow the run executed, for node titles in its log. */
  workflow?: Workflow;
  /** A paused run's waiting human-input forms. */
  forms?: PausedForm[];
}

/** A human-input form a paused run waits on (`GET /api/runs/:id/forms`). */
export interface PausedForm {
  id: string;
  nodeId: string;
  nodeTitle: string;
  content: string;
  inputs: Array<{ type: string; output_variable_name: string; option_source?: { type?: string; value?: unknown } }>;
  actions: Array<{ id: string; title: string; button_style?: string }>;
  defaults: Record<string, unknown>;
  status: string;
  expiresAt: number | null;
}

/** A chat app's preview conversation: its turns and the variables carried into the next one. */
export interface Conversation {
  id?: string;
  turns: Array<{
    query: string;
    answer?: string;
    runId?: string;
    status?: string;
    error?: { code: string; message: string };
  }>;
  variables?: Record<string, unknown>;
  dialogueCount?: number;
}

/** GET /api/auth/me: who the studio acts as and what the role may do. */
export interface Me {
  kind: "key" | "session";
  user?: { id: string; email: string };
  workspace?: { id: string; name: string };
  role: string;
  permissions: string[];
}

/** A workspace the signed-in account belongs to (GET /api/auth/workspaces), for the header's switcher. */
export interface WorkspaceChoice {
  workspace: { id: string; name: string };
  role: string;
  current: boolean;
}

/** The Members panel's view of the workspace: its members and the invitations not used yet. */
export interface Team {
  members: Array<{ userId: string; email?: string; role: string; since: number }>;
  invites: Array<{ id: string; role: string; createdAt: number; expiresAt: number }>;
  /** The link of the invitation just made: shown once, to copy (the server keeps only its hash). */
  lastLink?: { url: string; role: string };
}
