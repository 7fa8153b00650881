import { api } from "../api";
import type { Diagnostic } from "../types";
import { errText } from "./errText";
import type { Store } from "./state";

let validateTimer: ReturnType<typeof setTimeout> | undefined;
let validateSeq = 0;

/** Live validation: the analyser's diagnostics for the draft, a moment after the last edit. */
export function scheduleValidate({ set, get }: Store) {
  clearTimeout(validateTimer);
  validateTimer = setTimeout(async () => {
    const wf = get().draft;
    if (!wf) return;
    const seq = ++validateSeq;
    try {
      const r = await api<{ diagnostics: Diagnostic[]; ports?: Record<string, string[]> }>("/api/analyse", {
        json: { workflow: wf },
      });
      if (seq === validateSeq) set({ diagnostics: r.diagnostics, ...(r.ports ? { ports: r.ports } : {}) });
    } catch (e) {
      get().say("error", errText(e));
    }
  }, 250);
}

/**
 * The editor's content is replaced wholesale (a version, the server draft, another app): a validation still
 * waiting or under way was of what was there before, and its answer must not overwrite the new diagnostics.
 */
export function cancelValidate() {
  clearTimeout(validateTimer);
  validateSeq++;
}
