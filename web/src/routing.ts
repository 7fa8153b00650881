/**
 * The studio's deep links both ways: a URL opens its app and run (on load, back and forward), and opening an app
 * or starting a run puts its URL in the address bar, so a reload comes back to it.
 */
import { leaveApp } from "./draft/autosave";
import { go, parseRoute, routePath } from "./route";
import { openRun } from "./run/openRun";
import { useStore } from "./store";

/** While the store is being brought to a URL, its changes are not written back to the URL. */
let syncing = false;
let wanted = "";

export async function syncToRoute(path: string): Promise<void> {
  wanted = path;
  const r = parseRoute(path);
  syncing = true;
  try {
    const s = useStore.getState();
    if (!r.appId) {
      // Back to the list (the browser's back button): the edits are saved first, or the user is asked.
      if (s.app && !(await leaveApp())) history.pushState(null, "", routePath({ appId: s.app.id, runId: s.run.runId }));
      return;
    }
    if (s.app?.id !== r.appId) await useStore.getState().openApp(r.appId);
    if (wanted !== path) return;
    // Not opened (an unknown app; its error is said): the list, not a page that waits forever.
    if (useStore.getState().app?.id !== r.appId) return go("/", true);
    // Not awaited: following a running run lasts as long as the run; openRun names it in the store at once.
    if (r.runId && useStore.getState().run.runId !== r.runId) void openRun(r.runId);
  } finally {
    if (wanted === path) syncing = false;
  }
}

const storePath = (): string => {
  const s = useStore.getState();
  return routePath({ appId: s.app?.id, runId: s.app ? s.run.runId : undefined });
};

export function followStoreInUrl(): void {
  useStore.subscribe((s, prev) => {
    // Signed in with a key or a session alike (a session has no key: its URLs were never written).
    if (syncing || (!s.key && !s.me)) return;
    if (s.app?.id === prev.app?.id && s.run.runId === prev.run.runId) return;
    const path = storePath();
    go(path);
  });
}
