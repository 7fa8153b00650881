import { api } from "../api";
import { recordEdit } from "../draft/history";
import type { ProposalView, VersionBody, VersionInfo } from "../types";
import type { Store, VersionsSlice } from "./state";
import { cancelValidate } from "./validation";

type UndoAnswer = { available: boolean; revision: number; proposal?: ProposalView };

export function versionsSlice({ set, get }: Store): VersionsSlice {
  return {
    versions: [],
    async loadVersions() {
      const app = get().app;
      if (!app) return;
      const [{ versions }, undo] = await Promise.all([
        api<{ versions: VersionInfo[] }>(`/api/apps/${app.id}/versions`),
        api<UndoAnswer>(`/api/apps/${app.id}/undo`),
      ]);
      set({ versions, lastApplied: undo.proposal, undoState: { available: undo.available, revision: undo.revision } });
    },
    async checkUndo() {
      const app = get().app;
      if (!app) return;
      const undo = await api<UndoAnswer>(`/api/apps/${app.id}/undo`);
      if (get().app?.id === app.id)
        set({ lastApplied: undo.proposal, undoState: { available: undo.available, revision: undo.revision } });
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
  };
}
