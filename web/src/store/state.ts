/**
 * The studio's one store, described slice by slice: each slice's fields and actions are made by the file of the
 * same name in this folder, and index.ts puts them together.
 */
import type { StoreApi } from "zustand";
import type { Point } from "../canvas/layout";
import type { EditHistory } from "../draft/history";
import type {
  AppInfo,
  AvailableValue,
  Diagnostic,
  ImportResult,
  NodeTypeInfo,
  ProposalView,
  VersionBody,
  VersionInfo,
  WfNode,
  Workflow,
  WorkflowDiff,
} from "../types";
import type { ChatEntry, Conversation, Me, Review, RunState, Team, WorkspaceChoice } from "./entities";

export type Panel = "inspector" | "run" | "chat" | "versions" | "logs" | "tests" | "env";

export interface SessionSlice {
  key: string;
  /** Set once signed in (with a key or a session); what the buttons the role may not use are disabled by. */
  me?: Me;
  /** The page asked the server whether its cookie is still a session (false until then: no login flash). */
  sessionChecked: boolean;
  authError?: string;
  /** The account's workspaces (one entry for a key); the switcher shows when there are several. */
  workspaces: WorkspaceChoice[];
  login(key: string): Promise<void>;
  /** Sign in with email and password (a session cookie); the message on failure never says which was wrong. */
  signIn(email: string, password: string): Promise<void>;
  /** On page load without a key: continue the browser's session if the server still has it. */
  resumeSession(): Promise<void>;
  /** Use a `?link=` token (an invitation, the setup link, a sign-in link) and enter the studio signed in. */
  acceptLink(token: string, account?: { email: string; password: string }): Promise<void>;
  /** Ask the server again who we are: a role an owner changed applies to the buttons at once. */
  refreshMe(): Promise<void>;
  switchWorkspace(workspaceId: string): Promise<void>;
  /** Whether the signed-in role has a permission (src/server/auth/permissions.ts). */
  can(permission: string): boolean;
  logout(message?: string): void;
}

export interface TeamSlice {
  team?: Team;
  loadTeam(): Promise<void>;
  /** A single-use invitation link with a role; the answer's URL is kept in `team.lastLink` to copy. */
  invite(role: string): Promise<void>;
  revokeInvite(inviteId: string): Promise<void>;
  setMemberRole(userId: string, role: string): Promise<void>;
  removeMember(userId: string): Promise<void>;
  resetPassword(userId: string, password: string): Promise<boolean>;
}

export interface AppsSlice {
  apps: AppInfo[];
  nodeTypes: NodeTypeInfo[];
  app?: AppInfo;
  loadApps(): Promise<void>;
  createApp(name: string, mode: "workflow" | "advanced-chat"): Promise<void>;
  deleteApp(id: string): Promise<void>;
  importNew(yaml: string): Promise<ImportResult>;
  openApp(id: string): Promise<void>;
  closeApp(): void;
}

export interface DraftSlice {
  saved?: VersionBody;
  draft?: Workflow;
  /** The draft differs from the version it was made from (its edits are in the server draft, not in a version). */
  dirty: boolean;
  /** The server draft's revision the editor's draft was loaded from or last saved as (src/draft/autosave.ts). */
  draftRevision?: number;
  /** Counts the user's edits of the draft; autosave saves when it moves. */
  edits: number;
  /** Counts loads of the draft from the server (open, reload, a new version): autosave has nothing to save then. */
  draftLoads: number;
  diagnostics: Diagnostic[];
  ports: Record<string, string[]>;
  reloadWorkflow(): Promise<void>;
  importVersion(yaml: string): Promise<ImportResult>;
  placeMissing(): Promise<void>;
  autoLayoutAll(): Promise<void>;
  save(): Promise<boolean>;
  availableAt(nodeId: string): Promise<AvailableValue[]>;
}

export interface EditSlice {
  /**
   * Undo/redo of the editor's edits since the draft was last loaded from the server. Applying an AI proposal or
   * its Undo loads the draft again and so starts a new history: AI changes have their own Undo (Versions).
   */
  history: EditHistory;
  updateNode(id: string, patch: Partial<Pick<WfNode, "title" | "config">>): void;
  /** An edit of the draft: one undo step (`step` names a gesture whose edits join into one, see history.ts). */
  setDraft(wf: Workflow, step?: string): void;
  /**
   * Dragged or laid-out positions; `edit` marks the draft unsaved and is an undo step (auto-placement of new
   * nodes is neither); `step` names the drag, whose frames are one step.
   */
  moveNodes(pos: Record<string, Point>, edit: boolean, step?: string): void;
  /** Ctrl+Z: the draft as it was before the last edit (autosaved like any edit). */
  undoEdit(): void;
  /** Shift+Ctrl+Z: the edit undone last, again. */
  redoEdit(): void;
  /** A field was left: the next edit, even of the same field, is a new undo step. */
  endEditStep(): void;
}

export interface RunSlice {
  run: RunState;
  conversation: Conversation;
  startRun(inputs: Record<string, unknown>, query?: string): Promise<void>;
  /** Follow a run's events from where the panel's log ends, then load its trace (and forms when paused). */
  followRun(runId: string): Promise<void>;
  /** Answer a paused run's form; the run continues and the panel follows it. */
  answerForm(formId: string, action: string, inputs: Record<string, unknown>): Promise<void>;
  newConversation(): void;
}

export interface ChatSlice {
  chat: { entries: ChatEntry[]; busy: boolean };
  sendChat(text: string): Promise<void>;
}

export interface ReviewSlice {
  review?: Review;
  /** Show a proposal (with its workflow) for review; `hidden` keeps it put aside (a refresh after a save). */
  /** `hidden: "as-is"` keeps the bar shown or put aside as the user has it when the proposal arrives. */
  openProposal(p: ProposalView, hidden?: boolean | "as-is"): Promise<void>;
  /** The newest pending proposal of the open app, made by any client, shown as the chat's would be. */
  loadPending(): Promise<void>;
  applyProposal(): Promise<void>;
  rejectProposal(): Promise<void>;
  hideReview(hidden: boolean): void;
  /** A new version with the workflow of the current version's parent. */
  undo(): Promise<void>;
}

export interface VersionsSlice {
  versions: VersionInfo[];
  /** The last AI proposal applied to the draft and not undone: what Undo takes back out. */
  lastApplied?: ProposalView;
  /** The server's word on Undo (GET /undo) at draft revision `revision`: judged by content, not revision. */
  undoState?: { available: boolean; revision: number };
  diff?: { version: number; against: number | null; diff: WorkflowDiff };
  loadVersions(): Promise<void>;
  /** Ask the server again whether Undo would apply now (after a save moved the draft's revision). */
  checkUndo(): Promise<void>;
  showDiff(version: number): Promise<void>;
  restore(version: number): Promise<void>;
}

export interface UiSlice {
  selected?: string;
  panel: Panel;
  /** Bumped when a workflow is loaded (app opened, version loaded), so the canvas picks its first view. */
  viewNonce: number;
  notice?: { kind: "ok" | "error"; text: string };
  select(id?: string): void;
  setPanel(p: Panel): void;
  say(kind: "ok" | "error", text: string): void;
}

export type State = SessionSlice &
  TeamSlice &
  AppsSlice &
  DraftSlice &
  EditSlice &
  RunSlice &
  ChatSlice &
  ReviewSlice &
  VersionsSlice &
  UiSlice;

/** What a slice's actions reach the whole store by. */
export interface Store {
  set: StoreApi<State>["setState"];
  get: () => State;
}
