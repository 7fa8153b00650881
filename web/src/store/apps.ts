import { ApiFailure, api } from "../api";
import { emptyHistory } from "../draft/history";
import type { AppImported, AppInfo, VersionBody } from "../types";
import { loadChat } from "./chat";
import { errText } from "./errText";
import { emptyRun } from "./run";
import type { AppsSlice, Store } from "./state";
import { cancelValidate } from "./validation";

export function appsSlice(store: Store): AppsSlice {
  const { set, get } = store;
  return {
    apps: [],
    nodeTypes: [],
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
      const r = await api<AppImported>("/api/apps/import", { body: yaml, contentType: "text/yaml" });
      void get().loadApps();
      const v = await api<VersionBody>(`/api/apps/${r.app.id}/workflow`);
      return { ...r, version: r.version.version, workflow: v.workflow };
    },
    async openApp(id) {
      try {
        // The role may have changed since sign-in (an owner's doing): the editor's buttons follow the current one.
        await get().refreshMe();
        const { app } = await api<{ app: AppInfo }>(`/api/apps/${id}`);
        set({
          app,
          history: emptyHistory(),
          panel: "inspector",
          selected: undefined,
          notice: undefined,
          run: emptyRun(),
          conversation: { turns: [] },
          chat: { entries: [], busy: false },
          diff: undefined,
          review: undefined,
        });
        await get().reloadWorkflow();
        await loadChat(store, id);
        void get().loadVersions();
        await get().loadPending();
      } catch (e) {
        // A refused key has already led back to the login; anything else is said where the user is.
        if (!(e instanceof ApiFailure && e.status === 401)) get().say("error", `could not open the app: ${errText(e)}`);
      }
    },
    closeApp() {
      cancelValidate();
      set({
        app: undefined,
        saved: undefined,
        draft: undefined,
        selected: undefined,
        notice: undefined,
        review: undefined,
        history: emptyHistory(),
      });
      // A 401 (signed out, removed from the workspace) has already led back to the sign-in.
      void get()
        .loadApps()
        .catch((e) => !(e instanceof ApiFailure && e.status === 401) && get().say("error", errText(e)));
      // The list's buttons (import, members) follow the role as it is now.
      void get().refreshMe();
    },
  };
}
