import { closeStep } from "../draft/history";
import type { Store, UiSlice } from "./state";

export function uiSlice({ set, get }: Store): UiSlice {
  return {
    panel: "inspector",
    viewNonce: 0,
    // Picking a node while a proposal is reviewed shows its field changes, whichever tab was open.
    select: (id) =>
      set((s) => ({
        selected: id,
        panel: id && (s.panel === "versions" || (s.review && !s.review.hidden)) ? "inspector" : s.panel,
        history: id === s.selected ? s.history : closeStep(s.history),
      })),
    setPanel: (panel) => set({ panel }),
    say(kind, text) {
      const notice = { kind, text };
      set({ notice });
      // Confirmations fade; errors stay until clicked or until the view changes.
      if (kind === "ok") setTimeout(() => get().notice === notice && set({ notice: undefined }), 5000);
    },
  };
}
