import type { Point } from "../canvas/layout";
import { closeStep, type EditHistory, emptyHistory, recordEdit, redoStep, undoStep } from "../draft/history";
import type { Workflow } from "../types";
import { withPositions } from "./positions";
import type { EditSlice, Store } from "./state";
import { scheduleValidate } from "./validation";

export function editSlice(store: Store): EditSlice {
  const { set, get } = store;
  /** An undone or redone step becomes the draft: an edit like any other (autosaved), the selection kept if it is still there. */
  const showStep = (draft: Workflow, history: EditHistory) => {
    set((s) => ({
      draft,
      history,
      dirty: true,
      edits: s.edits + 1,
      selected: draft.nodes.some((n) => n.id === s.selected) ? s.selected : undefined,
    }));
    scheduleValidate(store);
  };

  return {
    history: emptyHistory(),
    updateNode(id, patch) {
      const wf = get().draft;
      if (!wf) return;
      const next = { ...wf, nodes: wf.nodes.map((n) => (n.id === id ? { ...n, ...patch } : n)) };
      // Typing into one field of one node is one undo step, however many keystrokes.
      const step = `node:${id}:${Object.keys(patch).sort().join(",")}`;
      set((s) => ({ draft: next, dirty: true, edits: s.edits + 1, history: recordEdit(s.history, wf, step) }));
      scheduleValidate(store);
    },
    setDraft(wf, step) {
      set((s) => ({
        draft: wf,
        dirty: true,
        edits: s.edits + 1,
        history: s.draft ? recordEdit(s.history, s.draft, step) : s.history,
      }));
      scheduleValidate(store);
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
  };
}
