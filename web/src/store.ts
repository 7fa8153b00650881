import { create } from "zustand";
import { ApiFailure, api, getKey, setKey, stream } from "./api";
import type { AppInfo, AttemptRecord, Diagnostic, Diff, NodeTypeInfo, RunEvent, VersionBody, VersionInfo, WfNode, Workflow } from "./types";

export type Panel = "inspector" | "run" | "chat" | "versions";
export type NodeStatus = "running" | "succeeded" | "failed" | "exception" | "skipped";

export interface ChatEntry {
  role: "user" | "assistant" | "tool" | "error";
  text: string;
}

interface RunState {
  runId?: string;
  status?: string;
  statuses: Record<string, NodeStatus>;
  events: RunEvent[];
  outputs?: Record<string, unknown>;
  error?: { code: string; message: string; nodeId?: string };
  trace: AttemptRecord[];
}

interface State {
  key: string;
  authError?: string;
  apps: AppInfo[];
  nodeTypes: NodeTypeInfo[];
  app?: AppInfo;
  saved?: VersionBody;
  draft?: Workflow;
  dirty: boolean;
  diagnostics: Diagnostic[];
  ports: Record<string, string[]>;
  selected?: string;
  panel: Panel;
  /** Bumped when the workflow's shape changes, so the canvas lays it out again. */
  layoutNonce: number;
  notice?: { kind: "ok" | "error"; text: string };
  run: RunState;
  chat: { entries: ChatEntry[]; busy: boolean };
  versions: VersionInfo[];
  diff?: { version: number; against: number | null; diff: Diff };

  login(key: string): Promise<void>;
  logout(): void;
  loadApps(): Promise<void>;
  createApp(name: string, mode: "workflow" | "advanced-chat"): Promise<void>;
  deleteApp(id: string): Promise<void>;
  importNew(yaml: string): Promise<void>;
  openApp(id: string): Promise<void>;
  closeApp(): void;
  reloadWorkflow(): Promise<void>;
  importVersion(yaml: string): Promise<void>;
  select(id?: string): void;
  setPanel(p: Panel): void;
  updateNode(id: string, patch: Partial<Pick<WfNode, "title" | "config">>): void;
  setDraft(wf: Workflow, relayout?: boolean): void;
  save(): Promise<boolean>;
  startRun(inputs: Record<string, unknown>, query?: string): Promise<void>;
  sendChat(text: string): Promise<void>;
  loadVersions(): Promise<void>;
  showDiff(version: number): Promise<void>;
  restore(version: number): Promise<void>;
  say(kind: "ok" | "error", text: string): void;
}

const emptyRun = (): RunState => ({ statuses: {}, events: [], trace: [] });
const errText = (e: unknown) => (e instanceof ApiFailure ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e));

let validateTimer: ReturnType<typeof setTimeout> | undefined;
let validateSeq = 0;

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

  const applyVersion = (v: VersionBody, relayout = true) =>
    set((s) => ({
      saved: v,
      draft: structuredClone(v.workflow),
      dirty: false,
      diagnostics: v.diagnostics,
      ports: v.ports,
      layoutNonce: relayout ? s.layoutNonce + 1 : s.layoutNonce,
    }));

  return {
    key: getKey(),
    apps: [],
    nodeTypes: [],
    dirty: false,
    diagnostics: [],
    ports: {},
    panel: "inspector",
    layoutNonce: 0,
    run: emptyRun(),
    chat: { entries: [], busy: false },
    versions: [],

    say(kind, text) {
      const notice = { kind, text };
      set({ notice });
      // Confirmations fade; errors stay until clicked.
      if (kind === "ok") setTimeout(() => get().notice === notice && set({ notice: undefined }), 5000);
    },

    async login(key) {
      setKey(key.trim());
      set({ key: key.trim(), authError: undefined });
      try {
        await get().loadApps();
        const { nodeTypes } = await api<{ nodeTypes: NodeTypeInfo[] }>("/api/node-types");
        set({ nodeTypes });
      } catch (e) {
        setKey("");
        set({ key: "", authError: errText(e) });
      }
    },
    logout() {
      setKey("");
      set({ key: "", app: undefined, apps: [] });
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
      try {
        const r = await api<{ app: AppInfo; diagnostics: Diagnostic[] }>("/api/apps/import", { body: yaml, contentType: "text/yaml" });
        await get().openApp(r.app.id);
        const errors = r.diagnostics.filter((d) => d.severity === "error").length;
        get().say(errors ? "error" : "ok", `imported "${r.app.name}"${errors ? ` with ${errors} error(s) to fix` : ""}`);
      } catch (e) {
        get().say("error", `import failed: ${errText(e)}`);
      }
    },
    async openApp(id) {
      const { app } = await api<{ app: AppInfo }>(`/api/apps/${id}`);
      set({ app, selected: undefined, run: emptyRun(), chat: { entries: [], busy: false }, diff: undefined });
      await get().reloadWorkflow();
      const { messages } = await api<{ messages: Array<{ role: "user" | "assistant"; text: string }> }>(`/api/apps/${id}/messages`);
      set({ chat: { entries: messages.map((m) => ({ role: m.role, text: m.text })), busy: false } });
      void get().loadVersions();
    },
    closeApp() {
      set({ app: undefined, saved: undefined, draft: undefined, selected: undefined });
      void get().loadApps();
    },
    async reloadWorkflow() {
      const app = get().app;
      if (!app) return;
      applyVersion(await api<VersionBody>(`/api/apps/${app.id}/workflow`));
    },
    async importVersion(yaml) {
      const app = get().app;
      if (!app) return;
      try {
        const r = await api<{ version: number }>(`/api/apps/${app.id}/import`, { body: yaml, contentType: "text/yaml" });
        await get().reloadWorkflow();
        await get().loadVersions();
        get().say("ok", `imported as version ${r.version}`);
      } catch (e) {
        get().say("error", `import failed: ${errText(e)}`);
      }
    },
    select: (id) => set((s) => ({ selected: id, panel: id && s.panel === "versions" ? "inspector" : s.panel })),
    setPanel: (panel) => set({ panel }),
    updateNode(id, patch) {
      const wf = get().draft;
      if (!wf) return;
      const next = { ...wf, nodes: wf.nodes.map((n) => (n.id === id ? { ...n, ...patch } : n)) };
      set({ draft: next, dirty: true });
      scheduleValidate();
    },
    setDraft(wf, relayout = true) {
      set((s) => ({ draft: wf, dirty: true, layoutNonce: relayout ? s.layoutNonce + 1 : s.layoutNonce }));
      scheduleValidate();
    },
    async save() {
      const { app, draft } = get();
      if (!app || !draft) return false;
      try {
        const r = await api<{ version: number }>(`/api/apps/${app.id}/workflow`, { method: "PUT", json: { workflow: draft } });
        applyVersion(await api<VersionBody>(`/api/apps/${app.id}/workflow`), false);
        void get().loadVersions();
        get().say("ok", `saved version ${r.version}`);
        return true;
      } catch (e) {
        if (e instanceof ApiFailure && e.diagnostics.length) set({ diagnostics: e.diagnostics });
        get().say("error", `not saved: ${errText(e)}`);
        return false;
      }
    },
    async startRun(inputs, query) {
      const app = get().app;
      if (!app) return;
      set({ run: { ...emptyRun(), status: "starting" } });
      try {
        const { runId } = await api<{ runId: string }>(`/api/apps/${app.id}/runs`, { json: { inputs, ...(query !== undefined ? { query } : {}) } });
        set((s) => ({ run: { ...s.run, runId, status: "running" } }));
        await stream(`/api/runs/${runId}/events`, (ev: RunEvent) => {
          set((s) => {
            const run = { ...s.run, events: [...s.run.events, ev], statuses: { ...s.run.statuses } };
            const id = ev.nodeId;
            if (ev.type === "node_started" && id) run.statuses[id] = "running";
            if (ev.type === "node_finished" && id) run.statuses[id] = ev.status as NodeStatus;
            if (ev.type === "node_skipped" && id) run.statuses[id] = "skipped";
            if (ev.type === "run_finished") {
              run.status = ev.status as string;
              run.outputs = ev.outputs as Record<string, unknown>;
              run.error = ev.error as RunState["error"];
            }
            return { run };
          });
        });
        const { trace } = await api<{ trace: AttemptRecord[] }>(`/api/runs/${runId}/trace`);
        set((s) => ({ run: { ...s.run, trace } }));
      } catch (e) {
        set((s) => ({ run: { ...s.run, status: "failed", error: { code: e instanceof ApiFailure ? e.code : "ui", message: errText(e) } } }));
      }
    },
    async sendChat(text) {
      const app = get().app;
      if (!app || get().chat.busy) return;
      const push = (entry: ChatEntry) => set((s) => ({ chat: { ...s.chat, entries: [...s.chat.entries, entry] } }));
      set((s) => ({ chat: { entries: [...s.chat.entries, { role: "user", text }], busy: true } }));
      try {
        await stream(
          `/api/apps/${app.id}/chat`,
          async (ev) => {
            if (ev.type === "tool_execution") push({ role: "tool", text: `→ ${ev.tool}` });
            else if (ev.type === "tool_result") push({ role: "tool", text: `${ev.ok ? "✓" : "✗"} ${ev.tool}` });
            else if (ev.type === "message") push({ role: "assistant", text: ev.text });
            else if (ev.type === "error") push({ role: "error", text: `${ev.code}: ${ev.message}` });
            else if (ev.type === "version") {
              push({ role: "tool", text: `saved version ${ev.version}` });
              await get().reloadWorkflow();
              void get().loadVersions();
            }
          },
          // Until the studio reviews proposals (issue 19), the agent's change is applied at once.
          { json: { message: text, apply: true } },
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
      const { versions } = await api<{ versions: VersionInfo[] }>(`/api/apps/${app.id}/versions`);
      set({ versions });
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
      get().setDraft(structuredClone(v.workflow));
      get().say("ok", `version ${version} loaded into the editor; save to make it current`);
    },
  };
});
