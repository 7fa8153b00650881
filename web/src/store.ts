import { create } from "zustand";
import { ApiFailure, api, getKey, headers, setForbiddenHandler, setKey, setUnauthorizedHandler, stream } from "./api";
import { autoLayout, type Point } from "./canvas/layout";
import { positionsForMissing } from "./canvas/placement";
import { closeStep, type EditHistory, emptyHistory, recordEdit, redoStep, undoStep } from "./draft/history";
import { type NodeMark, type ReviewView, reviewView } from "./review/view";
import type {
  AppInfo,
  AttemptRecord,
  AvailableValue,
  Diagnostic,
  WorkflowDiff,
  DraftView,
  ImportResult,
  NodeTypeInfo,
  ProposalView,
  RunEvent,
  TurnOutcome,
  ProposalDecision,
  VersionBody,
  VersionInfo,
  WfNode,
  Workflow,
} from "./types";

export type Panel = "inspector" | "run" | "chat" | "versions" | "logs" | "tests" | "env";
export type NodeStatus = "running" | "succeeded" | "failed" | "exception" | "skipped" | "paused";
/** How a node is marked on the canvas by a proposal under review. */
export type Highlight = NodeMark;

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
  turns: Array<{ query: string; answer?: string; runId?: string; status?: string; error?: { code: string; message: string } }>;
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

interface State {
  key: string;
  /** Set once signed in (with a key or a session); what the buttons the role may not use are disabled by. */
  me?: Me;
  /** The page asked the server whether its cookie is still a session (false until then: no login flash). */
  sessionChecked: boolean;
  authError?: string;
  /** The account's workspaces (one entry for a key); the switcher shows when there are several. */
  workspaces: WorkspaceChoice[];
  team?: Team;
  apps: AppInfo[];
  nodeTypes: NodeTypeInfo[];
  app?: AppInfo;
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
  selected?: string;
  panel: Panel;
  /** Bumped when a workflow is loaded (app opened, version loaded), so the canvas picks its first view. */
  viewNonce: number;
  review?: Review;
  notice?: { kind: "ok" | "error"; text: string };
  run: RunState;
  conversation: Conversation;
  chat: { entries: ChatEntry[]; busy: boolean };
  versions: VersionInfo[];
  /** The last AI proposal applied to the draft and not undone: what Undo takes back out. */
  lastApplied?: ProposalView;
  /** The server's word on Undo (GET /undo) at draft revision `revision`: judged by content, not revision. */
  undoState?: { available: boolean; revision: number };
  diff?: { version: number; against: number | null; diff: WorkflowDiff };
  /**
   * Undo/redo of the editor's edits since the draft was last loaded from the server. Applying an AI proposal or
   * its Undo loads the draft again and so starts a new history: AI changes have their own Undo (Versions).
   */
  history: EditHistory;

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
  loadTeam(): Promise<void>;
  /** A single-use invitation link with a role; the answer's URL is kept in `team.lastLink` to copy. */
  invite(role: string): Promise<void>;
  revokeInvite(inviteId: string): Promise<void>;
  setMemberRole(userId: string, role: string): Promise<void>;
  removeMember(userId: string): Promise<void>;
  resetPassword(userId: string, password: string): Promise<boolean>;
  /** Whether the signed-in role has a permission (src/server/auth/permissions.ts). */
  can(permission: string): boolean;
  logout(message?: string): void;
  loadApps(): Promise<void>;
  createApp(name: string, mode: "workflow" | "advanced-chat"): Promise<void>;
  deleteApp(id: string): Promise<void>;
  importNew(yaml: string): Promise<ImportResult>;
  openApp(id: string): Promise<void>;
  closeApp(): void;
  reloadWorkflow(): Promise<void>;
  importVersion(yaml: string): Promise<ImportResult>;
  select(id?: string): void;
  setPanel(p: Panel): void;
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
  placeMissing(): Promise<void>;
  autoLayoutAll(): Promise<void>;
  save(): Promise<boolean>;
  availableAt(nodeId: string): Promise<AvailableValue[]>;
  startRun(inputs: Record<string, unknown>, query?: string): Promise<void>;
  /** Follow a run's events from where the panel's log ends, then load its trace (and forms when paused). */
  followRun(runId: string): Promise<void>;
  /** Answer a paused run's form; the run continues and the panel follows it. */
  answerForm(formId: string, action: string, inputs: Record<string, unknown>): Promise<void>;
  newConversation(): void;
  sendChat(text: string): Promise<void>;
  loadVersions(): Promise<void>;
  /** Ask the server again whether Undo would apply now (after a save moved the draft's revision). */
  checkUndo(): Promise<void>;
  showDiff(version: number): Promise<void>;
  restore(version: number): Promise<void>;
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
  say(kind: "ok" | "error", text: string): void;
}

const emptyRun = (): RunState => ({ statuses: {}, events: [], trace: [] });
export const errText = (e: unknown) => (e instanceof ApiFailure ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e));

const SESSION_ENDED = "Your session has ended (signed out elsewhere, or the server no longer has it). Sign in again.";

/** One message for an unknown email and a wrong password, as the server answers both alike. */
function signInRefusal(status: number, message?: string): string {
  if (status === 401) return "The email or the password is wrong.";
  if (status === 429) return "Too many failed sign-ins from here. Wait a few minutes and try again.";
  return message ?? `Sign-in failed (HTTP ${status}).`;
}

const STALE_KEY =
  "The server no longer accepts the API key saved in this browser (the server was restarted with another database, or the key was revoked). Sign in with a current key: `weft serve --sample` prints one, `weft keys create` makes one.";

/** Saves the editor's pending draft edits (set by src/draft/autosave.ts; the store cannot import it). */
let flushDraft: () => Promise<unknown> = async () => {};
export const setDraftFlusher = (f: () => Promise<unknown>) => {
  flushDraft = f;
};

let validateTimer: ReturnType<typeof setTimeout> | undefined;
let validateSeq = 0;
const availableCache = new WeakMap<Workflow, Map<string, Promise<AvailableValue[]>>>();

export const useStore = create<State>((set, get) => {
  /** Live validation: the analyser's diagnostics for the draft, a moment after the last edit. */
  const scheduleValidate = () => {
    clearTimeout(validateTimer);
    validateTimer = setTimeout(async () => {
      const wf = get().draft;
      if (!wf) return;
      const seq = ++validateSeq;
      try {
        const r = await api<{ diagnostics: Diagnostic[]; ports?: Record<string, string[]> }>("/api/analyse", { json: { workflow: wf } });
        if (seq === validateSeq) set({ diagnostics: r.diagnostics, ...(r.ports ? { ports: r.ports } : {}) });
      } catch (e) {
        get().say("error", errText(e));
      }
    }, 250);
  };

  /**
   * The editor's content is replaced wholesale (a version, the server draft, another app): a validation still
   * waiting or under way was of what was there before, and its answer must not overwrite the new diagnostics.
   */
  const cancelValidate = () => {
    clearTimeout(validateTimer);
    validateSeq++;
  };

  /** A version becomes the editor's content: its workflow, diagnostics and ports arrive together. */
  const applyVersion = (v: VersionBody, view = true) => {
    cancelValidate();
    set((s) => ({
      saved: v,
      draft: structuredClone(v.workflow),
      dirty: false,
      diagnostics: v.diagnostics,
      ports: v.ports,
      viewNonce: view ? s.viewNonce + 1 : s.viewNonce,
    }));
  };

  // Dify files also keep `positionAbsolute`; it moves with the node, and with the container a node sits in.
  const withPositions = (wf: Workflow, pos: Record<string, Point>): Workflow => {
    const delta: Record<string, Point> = {};
    for (const n of wf.nodes) {
      const old = n.canvas?.position as Point | undefined;
      if (pos[n.id]) delta[n.id] = old ? { x: pos[n.id]!.x - old.x, y: pos[n.id]!.y - old.y } : { x: 0, y: 0 };
    }
    const shift = (n: WfNode): Point => {
      const own = delta[n.id] ?? { x: 0, y: 0 };
      const parent = n.parentId ? wf.nodes.find((x) => x.id === n.parentId) : undefined;
      const up = parent && parent.id !== n.id ? shift(parent) : { x: 0, y: 0 };
      return { x: own.x + up.x, y: own.y + up.y };
    };
    return {
      ...wf,
      nodes: wf.nodes.map((n) => {
        const abs = n.canvas?.positionAbsolute as Point | undefined;
        const d = abs ? shift(n) : { x: 0, y: 0 };
        if (!pos[n.id] && d.x === 0 && d.y === 0) return n;
        const canvas: Record<string, unknown> = { ...(n.canvas ?? {}), ...(pos[n.id] ? { position: pos[n.id] } : {}) };
        if (abs) canvas.positionAbsolute = { x: abs.x + d.x, y: abs.y + d.y };
        return { ...n, canvas };
      }),
    };
  };

  /** The turn's final reply carries what really happened; a reply claiming a change that was not made is marked. */
  const markOutcome = (reply: string, outcome: TurnOutcome, notApplied: boolean) =>
    set((s) => {
      const entries = [...s.chat.entries];
      let i = entries.length - 1;
      while (i >= 0 && entries[i]!.role !== "assistant" && entries[i]!.role !== "user") i--;
      if (i >= 0 && entries[i]!.role === "assistant" && entries[i]!.text === reply) entries[i] = { ...entries[i]!, outcome, notApplied };
      else entries.push({ role: "assistant", text: reply, outcome, notApplied });
      return { chat: { ...s.chat, entries } };
    });

  /** An undone or redone step becomes the draft: an edit like any other (autosaved), the selection kept if it is still there. */
  const showStep = (draft: Workflow, history: EditHistory) => {
    set((s) => ({ draft, history, dirty: true, edits: s.edits + 1, selected: draft.nodes.some((n) => n.id === s.selected) ? s.selected : undefined }));
    scheduleValidate();
  };

  const appPath = (rest: string) => `/api/apps/${get().app!.id}${rest}`;

  type StoredMessage = { role: "user" | "assistant"; text: string; outcome?: TurnOutcome; notApplied?: boolean; decision?: ProposalDecision };
  const proposalIdOf = (o?: TurnOutcome) => (o && "proposalId" in o ? o.proposalId : undefined);

  /** After an apply, reject or undo, each proposing turn shows what became of its proposal (the server knows). */
  const refreshDecisions = async () => {
    const app = get().app;
    if (!app) return;
    const { messages } = await api<{ messages: StoredMessage[] }>(`/api/apps/${app.id}/messages`);
    const byProposal = new Map(messages.flatMap((m) => (m.decision && proposalIdOf(m.outcome) ? [[proposalIdOf(m.outcome)!, m.decision] as const] : [])));
    if (get().app?.id !== app.id) return;
    set((s) => ({
      chat: {
        ...s.chat,
        entries: s.chat.entries.map((e) => {
          const d = byProposal.get(proposalIdOf(e.outcome) ?? "");
          return d ? { ...e, decision: d } : e;
        }),
      },
    }));
  };

  setUnauthorizedHandler(() => {
    // A refused key mid-session (or a stale one on page load) always leads back to the login.
    if (get().key) get().logout(STALE_KEY);
    else if (get().me) get().logout(SESSION_ENDED);
  });

  setForbiddenHandler(() => void get().refreshMe());

  const enter = async () => {
    const me = await api<Me>("/api/auth/me");
    const { apps } = await api<{ apps: AppInfo[] }>("/api/apps");
    const { nodeTypes } = await api<{ nodeTypes: NodeTypeInfo[] }>("/api/node-types");
    const { workspaces } = await api<{ workspaces: WorkspaceChoice[] }>("/api/auth/workspaces");
    return { me, apps, nodeTypes, workspaces, team: undefined };
  };

  /** A members change, then the panel's lists again; a refusal is said where the user is. */
  const teamChange = async (path: string, init: { method?: string; json?: unknown }, done?: string) => {
    try {
      await api(path, init);
      if (done) get().say("ok", done);
    } catch (e) {
      get().say("error", errText(e));
    }
    await get().loadTeam();
  };

  return {
    key: getKey(),
    sessionChecked: false,
    workspaces: [],
    apps: [],
    nodeTypes: [],
    dirty: false,
    edits: 0,
    draftLoads: 0,
    diagnostics: [],
    ports: {},
    panel: "inspector",
    viewNonce: 0,
    run: emptyRun(),
    conversation: { turns: [] },
    chat: { entries: [], busy: false },
    versions: [],
    history: emptyHistory(),

    say(kind, text) {
      const notice = { kind, text };
      set({ notice });
      // Confirmations fade; errors stay until clicked or until the view changes.
      if (kind === "ok") setTimeout(() => get().notice === notice && set({ notice: undefined }), 5000);
    },

    async login(key) {
      const k = key.trim();
      // A key already held (stored in the browser) that fails is stale; a newly typed one is just wrong.
      const stored = k === get().key;
      setKey(k);
      set({ authError: undefined });
      try {
        set({ key: k, ...(await enter()) });
      } catch (e) {
        setKey("");
        set({ key: "", authError: stored && e instanceof ApiFailure && e.status === 401 ? STALE_KEY : errText(e) });
      }
    },
    async signIn(email, password) {
      setKey("");
      set({ authError: undefined });
      const res = await fetch("/api/auth/login", {
        method: "POST",
        headers: { "content-type": "application/json", "x-weft-client": "studio" },
        body: JSON.stringify({ email, password }),
      });
      if (!res.ok) {
        const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
        set({ authError: signInRefusal(res.status, body.error?.message) });
        return;
      }
      try {
        set({ key: "", sessionChecked: true, ...(await enter()) });
      } catch (e) {
        set({ me: undefined, authError: errText(e) });
      }
    },
    async resumeSession() {
      if (get().key || get().sessionChecked) return;
      const res = await fetch("/api/auth/me", { headers: { "x-weft-client": "studio" } });
      if (res.ok) {
        try {
          set({ ...(await enter()), sessionChecked: true });
          return;
        } catch {
          // Signed out meanwhile: the login below.
        }
      }
      set({ sessionChecked: true });
    },
    async acceptLink(token, account) {
      setKey("");
      set({ authError: undefined });
      const res = await fetch(`/api/invites/${encodeURIComponent(token)}/accept`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-weft-client": "studio" },
        body: JSON.stringify(account ?? {}),
      });
      if (!res.ok) {
        const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
        throw new ApiFailure(res.status, body.error?.code ?? "http", signInRefusal(res.status, body.error?.message));
      }
      set({ key: "", sessionChecked: true, ...(await enter()) });
    },
    async refreshMe() {
      if (!get().me) return;
      try {
        set({ me: await api<Me>("/api/auth/me") });
      } catch {
        // A 401 has already led back to the sign-in.
      }
    },
    async switchWorkspace(workspaceId) {
      if (get().app && !(await flushDraft().then(() => true, () => false))) return;
      try {
        await api("/api/auth/switch", { json: { workspaceId } });
        set({ app: undefined, saved: undefined, draft: undefined, review: undefined, notice: undefined, ...(await enter()) });
      } catch (e) {
        get().say("error", errText(e));
      }
    },
    async loadTeam() {
      const { members } = await api<{ members: Team["members"] }>("/api/members");
      const { invites } = get().can("members.manage") ? await api<{ invites: Team["invites"] }>("/api/members/invites") : { invites: [] };
      set((s) => ({ team: { members, invites, lastLink: s.team?.lastLink } }));
    },
    async invite(role) {
      try {
        const r = await api<{ url: string }>("/api/members/invites", { json: { role } });
        set((s) => ({ team: { members: s.team?.members ?? [], invites: s.team?.invites ?? [], lastLink: { url: r.url, role } } }));
      } catch (e) {
        get().say("error", errText(e));
      }
      await get().loadTeam();
    },
    revokeInvite: (id) => teamChange(`/api/members/invites/${encodeURIComponent(id)}`, { method: "DELETE" }, "invitation revoked"),
    setMemberRole: (userId, role) => teamChange(`/api/members/${encodeURIComponent(userId)}`, { method: "PUT", json: { role } }, `role changed to ${role}`),
    removeMember: (userId) => teamChange(`/api/members/${encodeURIComponent(userId)}`, { method: "DELETE" }, "member removed"),
    async resetPassword(userId, password) {
      try {
        const r = await api<{ sessionsEnded: number }>(`/api/members/${encodeURIComponent(userId)}/password`, { json: { password } });
        get().say("ok", `password reset; ${r.sessionsEnded} session(s) signed out`);
        return true;
      } catch (e) {
        get().say("error", errText(e));
        return false;
      }
    },
    can(permission) {
      const me = get().me;
      return me === undefined || me.permissions.includes(permission);
    },
    logout(message) {
      if (get().me?.kind === "session")
        void fetch("/api/auth/logout", { method: "POST", headers: headers({ "content-type": "application/json" }), body: "{}" }).catch(() => {});
      setKey("");
      set({ key: "", me: undefined, workspaces: [], team: undefined, sessionChecked: true, app: undefined, apps: [], nodeTypes: [], saved: undefined, draft: undefined, notice: undefined, authError: message });
    },
    async loadApps() {
      const { apps } = await api<{ apps: AppInfo[] }>("/api/apps");
      set({ apps });
    },
    async createApp(name, mode) {
      try {
        const r = await api<{ app: AppInfo }>("/api/apps", { json: { name, mode } });
        await get().openApp(r.app.id);
      } catch (e) {
        get().say("error", errText(e));
      }
    },
    async deleteApp(id) {
      await api(`/api/apps/${id}`, { method: "DELETE" });
      await get().loadApps();
    },
    async importNew(yaml) {
      const r = await api<ImportResult & { app: AppInfo }>("/api/apps/import", { body: yaml, contentType: "text/yaml" });
      void get().loadApps();
      const v = await api<VersionBody>(`/api/apps/${r.app.id}/workflow`);
      return { ...r, workflow: v.workflow };
    },
    async openApp(id) {
      try {
        // The role may have changed since sign-in (an owner's doing): the editor's buttons follow the current one.
        await get().refreshMe();
        const { app } = await api<{ app: AppInfo }>(`/api/apps/${id}`);
        set({ app, history: emptyHistory(), panel: "inspector", selected: undefined, notice: undefined, run: emptyRun(), conversation: { turns: [] }, chat: { entries: [], busy: false }, diff: undefined, review: undefined });
        await get().reloadWorkflow();
        const { messages } = await api<{ messages: StoredMessage[] }>(`/api/apps/${id}/messages`);
        set({ chat: { entries: messages.map((m) => ({ role: m.role, text: m.text, ...(m.outcome ? { outcome: m.outcome, notApplied: m.notApplied ?? m.outcome.kind === "rejected" } : {}), ...(m.decision ? { decision: m.decision } : {}) })), busy: false } });
        void get().loadVersions();
        await get().loadPending();
      } catch (e) {
        // A refused key has already led back to the login; anything else is said where the user is.
        if (!(e instanceof ApiFailure && e.status === 401)) get().say("error", `could not open the app: ${errText(e)}`);
      }
    },
    closeApp() {
      cancelValidate();
      set({ app: undefined, saved: undefined, draft: undefined, selected: undefined, notice: undefined, review: undefined, history: emptyHistory() });
      // A 401 (signed out, removed from the workspace) has already led back to the sign-in.
      void get()
        .loadApps()
        .catch((e) => !(e instanceof ApiFailure && e.status === 401) && get().say("error", errText(e)));
      // The list's buttons (import, members) follow the role as it is now.
      void get().refreshMe();
    },
    async reloadWorkflow() {
      const app = get().app;
      if (!app) return;
      const [v, d] = await Promise.all([
        api<VersionBody>(`/api/apps/${app.id}/workflow`),
        api<DraftView>(`/api/apps/${app.id}/draft`),
      ]);
      const shown = get().draft;
      applyVersion(v);
      // The editor shows the server draft, errors and all; unchanged, it is the version as analysed with its ports.
      if (d.dirty || d.baseVersion !== v.version) {
        const r = await api<{ diagnostics: Diagnostic[]; ports?: Record<string, string[]> }>("/api/analyse", { json: { workflow: d.workflow } });
        cancelValidate();
        set({ draft: structuredClone(d.workflow), dirty: true, diagnostics: r.diagnostics, ...(r.ports ? { ports: { ...v.ports, ...r.ports } } : {}) });
      }
      // Another content (an AI change applied or undone, someone else's draft) starts a new history; the same
      // content (a publish) keeps it.
      const same = shown !== undefined && JSON.stringify(shown) === JSON.stringify(get().draft);
      set((s) => ({ draftRevision: d.revision, draftLoads: s.draftLoads + 1, ...(same ? {} : { history: emptyHistory() }) }));
    },
    async importVersion(yaml) {
      const app = get().app!;
      await flushDraft();
      const r = await api<ImportResult>(`/api/apps/${app.id}/import`, { body: yaml, contentType: "text/yaml" });
      await get().reloadWorkflow();
      await get().loadVersions();
      return { ...r, workflow: get().saved?.workflow };
    },
    // Picking a node while a proposal is reviewed shows its field changes, whichever tab was open.
    select: (id) =>
      set((s) => ({
        selected: id,
        panel: id && (s.panel === "versions" || (s.review && !s.review.hidden)) ? "inspector" : s.panel,
        history: id === s.selected ? s.history : closeStep(s.history),
      })),
    setPanel: (panel) => set({ panel }),
    updateNode(id, patch) {
      const wf = get().draft;
      if (!wf) return;
      const next = { ...wf, nodes: wf.nodes.map((n) => (n.id === id ? { ...n, ...patch } : n)) };
      // Typing into one field of one node is one undo step, however many keystrokes.
      const step = `node:${id}:${Object.keys(patch).sort().join(",")}`;
      set((s) => ({ draft: next, dirty: true, edits: s.edits + 1, history: recordEdit(s.history, wf, step) }));
      scheduleValidate();
    },
    setDraft(wf, step) {
      set((s) => ({ draft: wf, dirty: true, edits: s.edits + 1, history: s.draft ? recordEdit(s.history, s.draft, step) : s.history }));
      scheduleValidate();
    },
    moveNodes(pos, edit, step) {
      const wf = get().draft;
      if (!wf) return;
      // A drag ends with a frame at the same place, and a click is a drag of no distance: neither is a step.
      const moves = Object.entries(pos).some(([id, p]) => {
        const old = wf.nodes.find((n) => n.id === id)?.canvas?.position as Point | undefined;
        return !old || old.x !== p.x || old.y !== p.y;
      });
      if (!moves) return;
      set((s) => ({
        draft: withPositions(wf, pos),
        dirty: s.dirty || edit,
        edits: edit ? s.edits + 1 : s.edits,
        history: edit ? recordEdit(s.history, wf, step) : s.history,
      }));
    },
    endEditStep: () => set((s) => (s.history.open === undefined ? {} : { history: closeStep(s.history) })),
    undoEdit() {
      const { draft, history } = get();
      const r = draft && undoStep(history, draft);
      if (r) showStep(r.draft, r.history);
    },
    redoEdit() {
      const { draft, history } = get();
      const r = draft && redoStep(history, draft);
      if (r) showStep(r.draft, r.history);
    },
    async placeMissing() {
      const { draft, ports } = get();
      if (!draft) return;
      const pos = await positionsForMissing(draft, ports);
      // Only if the draft did not change meanwhile; the next render asks again otherwise.
      if (Object.keys(pos).length && get().draft === draft) get().moveNodes(pos, false);
    },
    async autoLayoutAll() {
      const { draft, ports } = get();
      if (!draft) return;
      const pos = await autoLayout(draft, ports);
      if (get().draft !== draft) return;
      get().moveNodes(pos, true);
      set((s) => ({ viewNonce: s.viewNonce + 1 }));
    },
    async save() {
      const { app, draft } = get();
      if (!app || !draft) return false;
      try {
        // The server draft first: a new version moves its revision, and a save still waiting would then be stale.
        await flushDraft();
        const r = await api<{ version: number }>(`/api/apps/${app.id}/workflow`, { method: "PUT", json: { workflow: draft } });
        applyVersion(await api<VersionBody>(`/api/apps/${app.id}/workflow`), false);
        // A new version is the draft's new base (its next revision).
        const d = await api<DraftView>(`/api/apps/${app.id}/draft`);
        set((s) => ({ draftRevision: d.revision, draftLoads: s.draftLoads + 1 }));
        void get().loadVersions();
        // A pending proposal was made against the version before: it is stale now, and says so.
        const review = get().review;
        if (review) {
          const fresh = await api<ProposalView>(appPath(`/proposals/${review.proposal.id}`));
          // Shown or put aside as the user has it now, not as it was when the save began.
          await get().openProposal(fresh, "as-is");
        }
        get().say("ok", `saved version ${r.version}`);
        return true;
      } catch (e) {
        if (e instanceof ApiFailure && e.diagnostics.length) set({ diagnostics: e.diagnostics });
        get().say("error", `not saved as a version (the draft keeps your edits): ${errText(e)}`);
        return false;
      }
    },
    availableAt(nodeId) {
      const wf = get().draft;
      if (!wf) return Promise.resolve([]);
      let perNode = availableCache.get(wf);
      if (!perNode) availableCache.set(wf, (perNode = new Map()));
      let p = perNode.get(nodeId);
      if (!p) {
        p = api<{ available: AvailableValue[] }>("/api/analyse/available", { json: { workflow: wf, nodeId } }).then((r) => r.available);
        p.catch(() => perNode!.delete(nodeId));
        perNode.set(nodeId, p);
      }
      return p;
    },
    async startRun(inputs, query) {
      const app = get().app;
      // The studio's Run runs the server draft (autosave has saved it before this is called).
      const draft = get().draft;
      if (!app || !draft) return;
      const chat = app.mode === "advanced-chat";
      set({ run: { ...emptyRun(), status: "starting", workflow: draft } });
      if (chat) set((s) => ({ conversation: { ...s.conversation, turns: [...s.conversation.turns, { query: query ?? "" }] } }));
      const patchTurn = (t: Partial<Conversation["turns"][number]>) =>
        set((s) => ({ conversation: { ...s.conversation, turns: s.conversation.turns.map((x, i) => (i === s.conversation.turns.length - 1 ? { ...x, ...t } : x)) } }));
      try {
        const body = { inputs, ...(query !== undefined ? { query } : {}), ...(chat && get().conversation.id ? { conversationId: get().conversation.id } : {}) };
        const { runId, conversationId } = await api<{ runId: string; conversationId?: string }>(`/api/apps/${app.id}/runs`, { json: body });
        set((s) => ({ run: { ...s.run, runId, status: "running" }, ...(conversationId ? { conversation: { ...s.conversation, id: conversationId } } : {}) }));
        if (chat) patchTurn({ runId });
        await get().followRun(runId);
        if (chat) {
          const out = get().run.outputs;
          const { status, error } = get().run;
          patchTurn({ answer: typeof out?.answer === "string" ? out.answer : undefined, status, ...(error ? { error: { code: error.code, message: error.message } } : {}) });
          if (conversationId) {
            const c = await api<{ variables: Record<string, unknown>; dialogueCount: number }>(`/api/apps/${app.id}/conversations/${conversationId}`);
            set((s) => ({ conversation: { ...s.conversation, variables: c.variables, dialogueCount: c.dialogueCount } }));
          }
        }
      } catch (e) {
        set((s) => ({ run: { ...s.run, status: "failed", error: { code: e instanceof ApiFailure ? e.code : "ui", message: errText(e) } } }));
        if (chat) patchTurn({ status: "failed", error: { code: e instanceof ApiFailure ? e.code : "ui", message: errText(e) } });
      }
    },
    async followRun(runId) {
      const after = get().run.events.length - 1;
      set((s) => ({ run: { ...s.run, status: "running", forms: undefined } }));
      await stream(`/api/runs/${runId}/events?after=${after}`, (ev: RunEvent) => {
        set((s) => {
          const run = { ...s.run, events: [...s.run.events, ev], statuses: { ...s.run.statuses } };
          const id = ev.nodeId;
          if (ev.type === "node_started" && id) run.statuses[id] = "running";
          if (ev.type === "node_finished" && id) run.statuses[id] = ev.status as NodeStatus;
          if (ev.type === "node_skipped" && id) run.statuses[id] = "skipped";
          if (ev.type === "node_paused" && id) run.statuses[id] = "paused";
          if (ev.type === "run_finished") {
            run.status = ev.status as string;
            run.outputs = ev.outputs as Record<string, unknown>;
            run.error = ev.error as RunState["error"];
          }
          return { run };
        });
      });
      // A run the server did not start (a test run, `weft run --db`) has no event log: its record says how it ended.
      if (get().run.status === "running") {
        const rec = await api<{ status: string; outputs?: Record<string, unknown>; error?: RunState["error"] }>(`/api/runs/${runId}`);
        if (rec.status !== "running") set((s) => ({ run: { ...s.run, status: rec.status, outputs: rec.outputs, error: rec.error } }));
      }
      const { trace } = await api<{ trace: AttemptRecord[] }>(`/api/runs/${runId}/trace`);
      set((s) => ({ run: { ...s.run, trace } }));
      if (get().run.status === "paused") {
        const { forms } = await api<{ forms: PausedForm[] }>(`/api/runs/${runId}/forms`);
        set((s) => ({ run: { ...s.run, forms: forms.filter((f) => f.status === "waiting") } }));
      }
    },
    async answerForm(formId, action, inputs) {
      const runId = get().run.runId;
      if (!runId) return;
      try {
        await api(`/api/runs/${runId}/forms/${formId}`, { json: { action, inputs } });
        await get().followRun(runId);
      } catch (e) {
        get().say("error", `the answer was not taken: ${errText(e)}`);
      }
    },
    newConversation: () => set({ conversation: { turns: [] }, run: emptyRun() }),
    async sendChat(text) {
      const app = get().app;
      if (!app || get().chat.busy) return;
      const push = (entry: ChatEntry) => set((s) => ({ chat: { ...s.chat, entries: [...s.chat.entries, entry] } }));
      set((s) => ({ chat: { entries: [...s.chat.entries, { role: "user", text }], busy: true } }));
      try {
        // The agent edits the server draft: it must hold the edits made just before asking.
        await flushDraft();
        await stream(
          `/api/apps/${app.id}/chat`,
          async (ev) => {
            if (ev.type === "tool_execution") push({ role: "tool", text: `→ ${ev.tool}` });
            else if (ev.type === "tool_result") push({ role: "tool", text: `${ev.ok ? "✓" : "✗"} ${ev.tool}` });
            else if (ev.type === "message") push({ role: "assistant", text: ev.text });
            else if (ev.type === "error") push({ role: "error", text: `${ev.code}: ${ev.message}` });
            else if (ev.type === "superseded") {
              if ((ev.proposals as string[]).includes(get().review?.proposal.id ?? "")) set({ review: undefined });
            } else if (ev.type === "proposal") await get().openProposal(ev.proposal as ProposalView);
            else if (ev.type === "done") markOutcome(ev.reply as string, ev.outcome as TurnOutcome, ev.notApplied === true);
          },
          // No `apply`: the change is a proposal the user reviews on the canvas before anything changes.
          { json: { message: text } },
        );
      } catch (e) {
        push({ role: "error", text: errText(e) });
      } finally {
        set((s) => ({ chat: { ...s.chat, busy: false } }));
      }
    },
    async loadVersions() {
      const app = get().app;
      if (!app) return;
      const [{ versions }, undo] = await Promise.all([
        api<{ versions: VersionInfo[] }>(`/api/apps/${app.id}/versions`),
        api<{ available: boolean; revision: number; proposal?: ProposalView }>(`/api/apps/${app.id}/undo`),
      ]);
      set({ versions, lastApplied: undo.proposal, undoState: { available: undo.available, revision: undo.revision } });
    },
    async checkUndo() {
      const app = get().app;
      if (!app) return;
      const undo = await api<{ available: boolean; revision: number; proposal?: ProposalView }>(`/api/apps/${app.id}/undo`);
      if (get().app?.id === app.id) set({ lastApplied: undo.proposal, undoState: { available: undo.available, revision: undo.revision } });
    },
    async showDiff(version) {
      const app = get().app;
      if (!app) return;
      set({ diff: await api(`/api/apps/${app.id}/versions/${version}/diff`) });
    },
    async restore(version) {
      const app = get().app;
      if (!app) return;
      const v = await api<VersionBody>(`/api/apps/${app.id}/versions/${version}`);
      // The old version's ports and diagnostics come with it: without its ports its edges have no handles.
      cancelValidate();
      set((s) => ({
        draft: structuredClone(v.workflow),
        dirty: true,
        edits: s.edits + 1,
        history: s.draft ? recordEdit(s.history, s.draft) : s.history,
        diagnostics: v.diagnostics,
        ports: v.ports,
        selected: undefined,
        viewNonce: s.viewNonce + 1,
      }));
      get().say("ok", `version ${version} loaded into the draft; publish to make it live`);
    },
    async openProposal(p, hidden = false) {
      try {
        const view = reviewView(p);
        const { ports } = await api<{ ports?: Record<string, string[]> }>("/api/analyse", { json: { workflow: p.workflow } });
        const allPorts = { ...get().ports, ...(ports ?? {}) };
        // New nodes often come without a position: place them as the editor places its own.
        const pos = await positionsForMissing(view.workflow, allPorts);
        if (Object.keys(pos).length) view.workflow = withPositions(view.workflow, pos);
        // Read when the proposal is shown, not when it was asked for: the user may have shown or hidden the bar meanwhile.
        const hide = (s: State) => (hidden === "as-is" ? (s.review?.proposal.id === p.id ? s.review.hidden : false) : hidden);
        set((s) => ({ review: { proposal: p, view, ports: allPorts, hidden: hide(s), busy: false }, selected: undefined, panel: s.panel === "versions" ? "inspector" : s.panel, viewNonce: s.viewNonce + 1 }));
      } catch (e) {
        get().say("error", `could not show the proposal: ${errText(e)}`);
      }
    },
    async loadPending() {
      if (!get().app) return;
      const { proposals } = await api<{ proposals: ProposalView[] }>(appPath("/proposals?status=pending"));
      const newest = [...proposals].sort((a, b) => b.createdAt - a.createdAt)[0];
      if (newest) await get().openProposal(await api<ProposalView>(appPath(`/proposals/${newest.id}`)));
    },
    async applyProposal() {
      const review = get().review;
      if (!review || review.busy) return;
      set({ review: { ...review, busy: true, refusal: undefined } });
      try {
        await flushDraft();
        // The server writes the draft (no version): Publish makes it live, Undo in Versions takes it back out.
        const r = await api<{ draft: { revision: number } }>(appPath(`/proposals/${review.proposal.id}/apply`), { method: "POST" });
        set({ review: undefined, selected: undefined });
        await get().reloadWorkflow();
        void get().loadVersions();
        get().say("ok", `Applied to the draft (revision ${r.draft.revision}). Publish to make it live; Undo is in Versions.`);
        void refreshDecisions().catch(() => {});
      } catch (e) {
        const diagnostics = e instanceof ApiFailure ? e.diagnostics : [];
        set({ review: { ...review, busy: false, refusal: { text: /nothing changed/i.test(errText(e)) ? errText(e) : `${errText(e)}. Nothing changed.`, diagnostics } } });
      }
    },
    async rejectProposal() {
      const review = get().review;
      if (!review || review.busy) return;
      set({ review: { ...review, busy: true } });
      try {
        await api(appPath(`/proposals/${review.proposal.id}/reject`), { method: "POST" });
        set((s) => ({ review: undefined, selected: undefined, viewNonce: s.viewNonce + 1 }));
        get().say("ok", "Proposal rejected. Nothing changed.");
        void refreshDecisions().catch(() => {});
      } catch (e) {
        set({ review: { ...review, busy: false } });
        get().say("error", `could not reject: ${errText(e)}`);
      }
    },
    hideReview(hidden) {
      const review = get().review;
      if (review) set((s) => ({ review: { ...review, hidden }, selected: undefined, viewNonce: s.viewNonce + 1 }));
    },
    async undo() {
      if (!get().app) return;
      try {
        await flushDraft();
        const r = await api<{ draft: { revision: number }; undone: ProposalView }>(appPath("/undo"), { method: "POST" });
        // The server supersedes pending proposals: they were made against the draft undone.
        set({ review: undefined, selected: undefined });
        await get().reloadWorkflow();
        await get().loadVersions();
        get().say("ok", `Undone: the draft is back to how it was before “${r.undone.summary}”.`);
        void refreshDecisions().catch(() => {});
      } catch (e) {
        get().say("error", `could not undo: ${errText(e)}`);
      }
    },
  };
});
