import type { Diagnostic } from "../ir/diagnostics.js";
import type { WorkflowDiff } from "../ir/diff.js";
import type { AppMode, Workflow } from "../ir/workflow.js";
import type { RunEvent } from "./run-events.js";

export interface AppRecord {
  id: string;
  name: string;
  mode: AppMode;
  description: string;
  createdAt: number;
  updatedAt: number;
  /** The version `/v1`, MCP, queued runs and triggers run; absent until the app is first published. */
  publishedVersion?: number;
}

export type VersionSource =
  | "create"
  | "import"
  | "edit"
  | "agent"
  | "sample"
  | "proposal"
  | "undo"
  | "restore"
  | "publish";

/**
 * The app's one working copy: what the studio edits and its Run runs. Saved on every change, errors and all;
 * every new version also becomes the draft, and applying a proposal, undoing one or restoring a version writes it.
 */
export interface DraftRecord {
  appId: string;
  workflow: Workflow;
  /** The analyser's findings when the draft was saved; absent for a draft set from a version (not analysed yet). */
  diagnostics?: Diagnostic[];
  /** Counts every save from 1; a save naming an older revision is refused (another editor saved meanwhile). */
  revision: number;
  /** The version the draft was last set from; its workflow equals the draft's until the next save. */
  baseVersion: number;
  updatedAt: number;
}

/** A draft save: stored, or refused because `expectedRevision` is no longer the current one. */
export type DraftSave = { saved: true; draft: DraftRecord } | { saved: false; current: DraftRecord };

export interface CreateAppOptions {
  /** Publish version 1 at once (default true); an import with analyser errors is created unpublished. */
  publish?: boolean;
}

export interface VersionRecord {
  appId: string;
  version: number;
  workflow: Workflow;
  source: VersionSource;
  note: string;
  /** The version this one was made from (undo goes back to it). */
  parent?: number;
  /** For an undo or restore: the version whose workflow this one restores. */
  restores?: number;
  createdAt: number;
}

export interface VersionLinks {
  parent?: number;
  restores?: number;
}

/**
 * What a chat turn actually did (src/authoring/outcome.ts states it from the diff and the checks): a proposal, a
 * rejected update (with its diagnostics, nothing changed) or no change at all. Kept with the message it explains.
 */
export type TurnOutcome =
  | { kind: "proposed"; summary: string; proposalId?: string; errors: number; warnings: number }
  /** Applied to the draft at `revision` (turns before drafts: as a new `version`). */
  | { kind: "applied"; summary: string; proposalId?: string; revision?: number; version?: number }
  | { kind: "rejected"; summary: string; diagnostics: Diagnostic[] }
  | { kind: "unchanged"; summary: string };

export interface ChatMessageRecord {
  seq: number;
  role: "user" | "assistant";
  text: string;
  version?: number;
  /** What the turn really did (assistant messages). */
  outcome?: TurnOutcome;
  proposalId?: string;
  createdAt: number;
}

export interface MessageExtra {
  outcome?: TurnOutcome;
  proposalId?: string;
}

export type ProposalStatus = "pending" | "applied" | "rejected" | "superseded";

/** An AI change shown to the user before anything is applied (src/authoring/proposal.ts makes them). */
export interface ProposalRecord {
  id: string;
  appId: string;
  baseVersion: number;
  status: ProposalStatus;
  /** Who made it: the agent chat, the CLI chat, or a client through POST /proposals. */
  source: string;
  instruction: string;
  workflow: Workflow;
  diff: WorkflowDiff;
  diagnostics: Diagnostic[];
  newErrors: Diagnostic[];
  summary: string;
  /** Proposals made before drafts were applied as this new version. */
  appliedVersion?: number;
  /**
   * The draft revision the proposal was made from; absent for one made against a version before drafts (such a
   * proposal is stale). A proposal applies to the draft only while the draft still holds what it was made from.
   */
  baseRevision?: number;
  /** The draft's workflow the proposal was made from: undoing the applied proposal restores it. */
  baseWorkflow?: Workflow;
  /** The draft revision applying it made. */
  appliedRevision?: number;
  /** When an undo took the applied proposal back out of the draft. */
  undoneAt?: number;
  /** The app's tests run on the draft with the proposal (or a dry run), before the user decides. */
  tests?: ProposalTests;
  createdAt: number;
  decidedAt?: number;
}

/** A failing case of a proposal's test run: where it failed and the run to look at. */
export interface ProposalTestFailure {
  caseId?: string;
  caseName: string;
  nodeId?: string;
  nodeTitle?: string;
  message: string;
  runId?: string;
}

/**
 * What testing a proposal found: its cases on the draft with the proposal against the draft alone (`was`),
 * or, for an app without cases, a dry run on the last successful run's inputs; `line` is what the review shows.
 */
export interface ProposalTests {
  mode: "cases" | "dry_run" | "none";
  passed: number;
  failed: number;
  was?: { passed: number; failed: number };
  failures: ProposalTestFailure[];
  /** The agent's revisions made because tests failed (0 when the first proposal was kept). */
  revisions?: number;
  line: string;
}

export type NewProposal = Omit<
  ProposalRecord,
  "id" | "status" | "createdAt" | "decidedAt" | "appliedVersion" | "appliedRevision" | "undoneAt"
>;

export interface ApiKeyRecord {
  id: string;
  name: string;
  createdAt: number;
  lastUsedAt?: number;
  /** The workspace the key acts in; keys made before teams are the default workspace's. */
  workspaceId: string;
  /** The role the key acts with (a TeamStore role); keys made before teams are owners (every right). */
  role: string;
}

/** Where a new key acts and with which role; omitted: the default workspace, owner (as keys before teams). */
export interface KeyGrant {
  workspaceId: string;
  role: string;
}

export const DEFAULT_KEY_GRANT: KeyGrant = { workspaceId: "default", role: "owner" };

/** Events of one run starting at sequence number `from` (0-based, contiguous). */
export interface EventBatch {
  runId: string;
  from: number;
  events: RunEvent[];
}

/**
 * The server's state beside the runs: apps and their workflow versions, API keys, the app chat's messages,
 * and run event logs (for SSE replay). Implemented in memory and on SQLite; issue 18 adds PostgreSQL.
 */
export interface AppStore {
  /** A new app with version 1 of its workflow, written together. */
  createApp(
    a: { name: string; mode: AppMode; description?: string },
    workflow: Workflow,
    source: VersionSource,
    opts?: CreateAppOptions,
  ): Promise<{ app: AppRecord; version: VersionRecord }>;
  /** Newest first. */
  listApps(): Promise<AppRecord[]>;
  getApp(id: string): Promise<AppRecord | undefined>;
  /** Removes the app, its versions, proposals and messages; false if there was no such app. */
  deleteApp(id: string): Promise<boolean>;

  /**
   * Append the next version; the app's name follows the workflow's, and the draft becomes it (next revision).
   * Without `links.parent` it is made from the current version.
   */
  addVersion(
    appId: string,
    wf: Workflow,
    source: VersionSource,
    note?: string,
    links?: VersionLinks,
  ): Promise<VersionRecord>;
  current(appId: string): Promise<VersionRecord | undefined>;
  version(appId: string, version: number): Promise<VersionRecord | undefined>;
  /** Oldest first. */
  versions(appId: string): Promise<VersionRecord[]>;

  /** The app's draft; undefined for an unknown app. */
  draft(appId: string): Promise<DraftRecord | undefined>;
  /**
   * Replace the draft (next revision). With `expectedRevision`, only while the draft is still at that revision
   * (compare-and-set), so of two editors saving from one revision exactly one wins. Undefined for an unknown app.
   */
  saveDraft(
    appId: string,
    workflow: Workflow,
    diagnostics: Diagnostic[],
    expectedRevision?: number,
  ): Promise<DraftSave | undefined>;
  /** Make an existing version the published one; undefined when the app or the version does not exist. */
  publish(appId: string, version: number): Promise<AppRecord | undefined>;
  /** The published version's record; undefined before the first publish. */
  published(appId: string): Promise<VersionRecord | undefined>;

  addMessage(
    appId: string,
    role: "user" | "assistant",
    text: string,
    version?: number,
    extra?: MessageExtra,
  ): Promise<void>;
  /** In the order they were added. */
  messages(appId: string): Promise<ChatMessageRecord[]>;

  /** A new pending proposal. */
  createProposal(p: NewProposal): Promise<ProposalRecord>;
  proposal(appId: string, id: string): Promise<ProposalRecord | undefined>;
  /** Oldest first; only those with `status` when given. */
  proposals(appId: string, status?: ProposalStatus): Promise<ProposalRecord[]>;
  /**
   * Decide a pending proposal (reject or supersede it). Only a pending one changes, so two requests
   * cannot both decide it; false when it was not pending.
   */
  decideProposal(appId: string, id: string, status: "rejected" | "superseded"): Promise<boolean>;
  /**
   * Apply a pending proposal to the draft: the draft becomes the proposal's workflow (next revision, stored with
   * `diagnostics`, base version unchanged) and the proposal is marked applied at that revision, together, and
   * only while the proposal is pending and the draft is at `expectedRevision`. Undefined when either no longer holds.
   * A proposal without a `baseWorkflow` (made before drafts) gets the workflow the apply replaced, for undo.
   */
  applyProposal(
    appId: string,
    id: string,
    expectedRevision: number,
    diagnostics: Diagnostic[],
  ): Promise<DraftRecord | undefined>;
  /**
   * Undo an applied proposal: the draft goes back to the proposal's `baseWorkflow` (next revision) and the proposal
   * records `undoneAt`, together, only while it is applied, not undone, and the draft is at `expectedRevision`.
   * `restored`, when given, is written instead of `baseWorkflow` (the base with the draft's current layout).
   */
  undoProposal(
    appId: string,
    id: string,
    expectedRevision: number,
    diagnostics: Diagnostic[],
    restored?: Workflow,
  ): Promise<DraftRecord | undefined>;
  /** Make a version's workflow the draft (next revision, based on that version); undefined for an unknown version. */
  restoreDraft(appId: string, version: number): Promise<DraftRecord | undefined>;

  /** A new API key; only its hash is stored, so the plain key is returned this once. */
  createKey(name?: string, grant?: KeyGrant): Promise<{ id: string; key: string }>;
  /** The key's record (workspace, role) when the key is valid. */
  findKey(key: string): Promise<ApiKeyRecord | undefined>;
  listKeys(): Promise<ApiKeyRecord[]>;
  revokeKey(id: string): Promise<boolean>;
  verifyKey(key: string): Promise<boolean>;

  /**
   * Write event batches, all in one transaction; writing a sequence number again replaces that event, so
   * a batch that is retried after a crash is harmless.
   */
  appendEvents(batches: EventBatch[]): Promise<void>;
  /** A run's events in sequence order; with `after`, only those with a greater sequence number (SSE Last-Event-ID). */
  events(runId: string, after?: number): Promise<RunEvent[]>;
}
