import { ApiFailure, api } from "../api";
import { autoLayout } from "../canvas/layout";
import { positionsForMissing } from "../canvas/placement";
import { emptyHistory } from "../draft/history";
import type {
  AvailableValue,
  Diagnostic,
  DraftView,
  ProposalView,
  VersionBody,
  VersionImported,
  Workflow,
} from "../types";
import { appPath } from "./appPath";
import { errText } from "./errText";
import { flushDraft } from "./flush";
import type { DraftSlice, Store } from "./state";
import { cancelValidate } from "./validation";

const availableCache = new WeakMap<Workflow, Map<string, Promise<AvailableValue[]>>>();

/** A version becomes the editor's content: its workflow, diagnostics and ports arrive together. */
function applyVersion({ set }: Store, v: VersionBody, view = true) {
  cancelValidate();
  set((s) => ({
    saved: v,
    draft: structuredClone(v.workflow),
    dirty: false,
    diagnostics: v.diagnostics,
    ports: v.ports,
    viewNonce: view ? s.viewNonce + 1 : s.viewNonce,
  }));
}

/** The open app's version and server draft become the editor's content. */
async function reloadWorkflow(store: Store) {
  const { set, get } = store;
  const app = get().app;
  if (!app) return;
  const [v, d] = await Promise.all([
    api<VersionBody>(`/api/apps/${app.id}/workflow`),
    api<DraftView>(`/api/apps/${app.id}/draft`),
  ]);
  const shown = get().draft;
  applyVersion(store, v);
  // The editor shows the server draft, errors and all; unchanged, it is the version as analysed with its ports.
  if (d.dirty || d.baseVersion !== v.version) {
    const r = await api<{ diagnostics: Diagnostic[]; ports?: Record<string, string[]> }>("/api/analyse", {
      json: { workflow: d.workflow },
    });
    cancelValidate();
    set({
      draft: structuredClone(d.workflow),
      dirty: true,
      diagnostics: r.diagnostics,
      ...(r.ports ? { ports: { ...v.ports, ...r.ports } } : {}),
    });
  }
  // Another content (an AI change applied or undone, someone else's draft) starts a new history; the same
  // content (a publish) keeps it.
  const same = shown !== undefined && JSON.stringify(shown) === JSON.stringify(get().draft);
  set((s) => ({
    draftRevision: d.revision,
    draftLoads: s.draftLoads + 1,
    ...(same ? {} : { history: emptyHistory() }),
  }));
}

/** The draft as a new version; false (the draft keeps its edits) when the server refuses it. */
async function save(store: Store): Promise<boolean> {
  const { set, get } = store;
  const { app, draft } = get();
  if (!app || !draft) return false;
  try {
    // The server draft first: a new version moves its revision, and a save still waiting would then be stale.
    await flushDraft();
    const r = await api<{ version: number }>(`/api/apps/${app.id}/workflow`, {
      method: "PUT",
      json: { workflow: draft },
    });
    applyVersion(store, await api<VersionBody>(`/api/apps/${app.id}/workflow`), false);
    // A new version is the draft's new base (its next revision).
    const d = await api<DraftView>(`/api/apps/${app.id}/draft`);
    set((s) => ({ draftRevision: d.revision, draftLoads: s.draftLoads + 1 }));
    void get().loadVersions();
    // A pending proposal was made against the version before: it is stale now, and says so.
    const review = get().review;
    if (review) {
      const fresh = await api<ProposalView>(appPath(store, `/proposals/${review.proposal.id}`));
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
}

export function draftSlice(store: Store): DraftSlice {
  const { set, get } = store;
  return {
    dirty: false,
    edits: 0,
    draftLoads: 0,
    diagnostics: [],
    ports: {},
    reloadWorkflow: () => reloadWorkflow(store),
    async importVersion(yaml) {
      const app = get().app!;
      await flushDraft();
      const r = await api<VersionImported>(`/api/apps/${app.id}/import`, { body: yaml, contentType: "text/yaml" });
      await get().reloadWorkflow();
      await get().loadVersions();
      return { ...r, workflow: get().saved?.workflow };
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
    save: () => save(store),
    availableAt(nodeId) {
      const wf = get().draft;
      if (!wf) return Promise.resolve([]);
      let perNode = availableCache.get(wf);
      if (!perNode) {
        perNode = new Map();
        availableCache.set(wf, perNode);
      }
      let p = perNode.get(nodeId);
      if (!p) {
        p = api<{ available: AvailableValue[] }>("/api/analyse/available", { json: { workflow: wf, nodeId } }).then(
          (r) => r.available,
        );
        p.catch(() => perNode!.delete(nodeId));
        perNode.set(nodeId, p);
      }
      return p;
    },
  };
}
