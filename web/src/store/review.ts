import { ApiFailure, api } from "../api";
import { positionsForMissing } from "../canvas/placement";
import { reviewView } from "../review/view";
import type { ProposalView } from "../types";
import { appPath } from "./appPath";
import { refreshDecisions } from "./chat";
import { errText } from "./errText";
import { flushDraft } from "./flush";
import { withPositions } from "./positions";
import type { ReviewSlice, State, Store } from "./state";

async function openProposal({ set, get }: Store, p: ProposalView, hidden: boolean | "as-is" = false) {
  try {
    const view = reviewView(p);
    const { ports } = await api<{ ports?: Record<string, string[]> }>("/api/analyse", {
      json: { workflow: p.workflow },
    });
    const allPorts = { ...get().ports, ...(ports ?? {}) };
    // New nodes often come without a position: place them as the editor places its own.
    const pos = await positionsForMissing(view.workflow, allPorts);
    if (Object.keys(pos).length) view.workflow = withPositions(view.workflow, pos);
    // Read when the proposal is shown, not when it was asked for: the user may have shown or hidden the bar meanwhile.
    const hide = (s: State) =>
      hidden === "as-is" ? (s.review?.proposal.id === p.id ? s.review.hidden : false) : hidden;
    set((s) => ({
      review: { proposal: p, view, ports: allPorts, hidden: hide(s), busy: false },
      selected: undefined,
      panel: s.panel === "versions" ? "inspector" : s.panel,
      viewNonce: s.viewNonce + 1,
    }));
  } catch (e) {
    get().say("error", `could not show the proposal: ${errText(e)}`);
  }
}

async function applyProposal(store: Store) {
  const { set, get } = store;
  const review = get().review;
  if (!review || review.busy) return;
  set({ review: { ...review, busy: true, refusal: undefined } });
  try {
    await flushDraft();
    // The server writes the draft (no version): Publish makes it live, Undo in Versions takes it back out.
    const r = await api<{ draft: { revision: number } }>(appPath(store, `/proposals/${review.proposal.id}/apply`), {
      method: "POST",
    });
    set({ review: undefined, selected: undefined });
    await get().reloadWorkflow();
    void get().loadVersions();
    get().say(
      "ok",
      `Applied to the draft (revision ${r.draft.revision}). Publish to make it live; Undo is in Versions.`,
    );
    void refreshDecisions(store).catch(() => {});
  } catch (e) {
    const diagnostics = e instanceof ApiFailure ? e.diagnostics : [];
    set({
      review: {
        ...review,
        busy: false,
        refusal: {
          text: /nothing changed/i.test(errText(e)) ? errText(e) : `${errText(e)}. Nothing changed.`,
          diagnostics,
        },
      },
    });
  }
}

async function rejectProposal(store: Store) {
  const { set, get } = store;
  const review = get().review;
  if (!review || review.busy) return;
  set({ review: { ...review, busy: true } });
  try {
    await api(appPath(store, `/proposals/${review.proposal.id}/reject`), { method: "POST" });
    set((s) => ({ review: undefined, selected: undefined, viewNonce: s.viewNonce + 1 }));
    get().say("ok", "Proposal rejected. Nothing changed.");
    void refreshDecisions(store).catch(() => {});
  } catch (e) {
    set({ review: { ...review, busy: false } });
    get().say("error", `could not reject: ${errText(e)}`);
  }
}

async function undo(store: Store) {
  const { set, get } = store;
  if (!get().app) return;
  try {
    await flushDraft();
    const r = await api<{ draft: { revision: number }; undone: ProposalView }>(appPath(store, "/undo"), {
      method: "POST",
    });
    // The server supersedes pending proposals: they were made against the draft undone.
    set({ review: undefined, selected: undefined });
    await get().reloadWorkflow();
    await get().loadVersions();
    get().say("ok", `Undone: the draft is back to how it was before “${r.undone.summary}”.`);
    void refreshDecisions(store).catch(() => {});
  } catch (e) {
    get().say("error", `could not undo: ${errText(e)}`);
  }
}

export function reviewSlice(store: Store): ReviewSlice {
  const { set, get } = store;
  return {
    openProposal: (p, hidden) => openProposal(store, p, hidden),
    async loadPending() {
      if (!get().app) return;
      const { proposals } = await api<{ proposals: ProposalView[] }>(appPath(store, "/proposals?status=pending"));
      const newest = [...proposals].sort((a, b) => b.createdAt - a.createdAt)[0];
      if (newest) await get().openProposal(await api<ProposalView>(appPath(store, `/proposals/${newest.id}`)));
    },
    applyProposal: () => applyProposal(store),
    rejectProposal: () => rejectProposal(store),
    hideReview(hidden) {
      const review = get().review;
      if (review) set((s) => ({ review: { ...review, hidden }, selected: undefined, viewNonce: s.viewNonce + 1 }));
    },
    undo: () => undo(store),
  };
}
