import type { Workflow } from "../types";

/**
 * Undo/redo of the editor's own edits: the drafts before each step (`past`) and the ones undone (`future`).
 * A step may be named: edits of the same open step join it (one drag, typing into one field), so undo takes
 * back the whole gesture rather than one frame or one keystroke.
 */
export interface EditHistory {
  past: Workflow[];
  future: Workflow[];
  /** The named step the last edit belonged to; any other edit, an undo or a redo closes it. */
  open?: string;
}

/** Enough for a working session; the oldest steps go first. */
export const HISTORY_LIMIT = 100;

export const emptyHistory = (): EditHistory => ({ past: [], future: [] });

/** An edit is about to replace `before`: a new step (and nothing left to redo), unless it joins the open one. */
export function recordEdit(h: EditHistory, before: Workflow, step?: string): EditHistory {
  if (step !== undefined && h.open === step) return h;
  return { past: [...h.past, before].slice(-HISTORY_LIMIT), future: [], open: step };
}

/** The edit's named step ends (a node picked elsewhere): the next edit of the same field is a new step. */
export const closeStep = (h: EditHistory): EditHistory => (h.open === undefined ? h : { ...h, open: undefined });

/** Back one step from `current`: the draft to show and the history after; undefined when there is none. */
export function undoStep(h: EditHistory, current: Workflow): { draft: Workflow; history: EditHistory } | undefined {
  const draft = h.past.at(-1);
  if (!draft) return undefined;
  return { draft, history: { past: h.past.slice(0, -1), future: [...h.future, current] } };
}

/** Forward again one undone step. */
export function redoStep(h: EditHistory, current: Workflow): { draft: Workflow; history: EditHistory } | undefined {
  const draft = h.future.at(-1);
  if (!draft) return undefined;
  return { draft, history: { past: [...h.past, current].slice(-HISTORY_LIMIT), future: h.future.slice(0, -1) } };
}
