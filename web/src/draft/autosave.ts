/**
 * Autosave: every edit of the draft goes to the server draft (PUT /api/apps/:id/draft) a moment after the last
 * one, errors and all, and at once when the page is hidden or left (a keepalive request outlives the page).
 * The save names the revision the edit was made on: when someone else saved meanwhile the server refuses it
 * (409 `draft.stale`) and the editor shows the conflict; nothing is overwritten unless the user says so.
 */
import { create } from "zustand";
import { ApiFailure, failure, headers } from "../api";
import { errText, setDraftFlusher, useStore } from "../store";
import type { DraftView } from "../types";

export type SaveState =
  | { kind: "saved"; revision?: number }
  | { kind: "pending" }
  | { kind: "saving" }
  | { kind: "error"; message: string }
  /** Another editor saved revision `current.revision`; this editor's edits are kept locally, unsaved. */
  | { kind: "conflict"; current: DraftView };

export const useSaveState = create<{ state: SaveState }>(() => ({ state: { kind: "saved" } }));

const DEBOUNCE_MS = 500;
// Browsers refuse keepalive bodies over 64 KiB; a bigger draft is saved by an ordinary request, or the page asks.
const KEEPALIVE_LIMIT = 60_000;

let timer: ReturnType<typeof setTimeout> | undefined;
let inflight: Promise<boolean> | undefined;
/** The revision the save under way was made on (its success makes the draft that plus one). */
let inflightRevision: number | undefined;
/** The `edits` count last sent as the page was hidden or left (sent once, not once per event). */
let exitSent = -1;
/** The `edits` count the server draft holds (what the last successful save or load had). */
let savedEdits = useStore.getState().edits;

const setState = (state: SaveState) => useSaveState.setState({ state });
const conflicted = () => useSaveState.getState().state.kind === "conflict";
/** Edits made since the server draft last matched the editor's. */
export const unsaved = () => useStore.getState().edits !== savedEdits;

/** A role without app.edit (viewer, runner) never saves: the server would refuse it with 403. */
export const readOnlyRole = () => !useStore.getState().can("app.edit");

function schedule(): void {
  if (conflicted() || readOnlyRole()) return;
  clearTimeout(timer);
  setState({ kind: "pending" });
  timer = setTimeout(() => void saveNow(), DEBOUNCE_MS);
}

/**
 * The draft as it is now, to the server; resolves true once the server draft holds it. Every save small enough
 * is a keepalive request, so one under way when the page goes still reaches the server.
 */
async function send(revision?: number): Promise<boolean> {
  const s = useStore.getState();
  const app = s.app;
  if (!app || !s.draft || readOnlyRole()) return true;
  if (s.draftRevision === undefined) {
    setState({ kind: "error", message: "the server draft has not loaded yet; retry in a moment" });
    return false;
  }
  const edits = s.edits;
  const rev = revision ?? s.draftRevision;
  if (revision === undefined) inflightRevision = rev;
  const body = JSON.stringify({ workflow: s.draft, revision: rev });
  setState({ kind: "saving" });
  try {
    const res = await fetch(`/api/apps/${encodeURIComponent(app.id)}/draft`, {
      method: "PUT",
      headers: headers({ "content-type": "application/json" }),
      body,
      keepalive: body.length < KEEPALIVE_LIMIT,
    });
    if (useStore.getState().app?.id !== app.id) return true;
    if (res.status === 409) {
      const b = (await res.json()) as { error?: { code?: string; message?: string }; draft?: DraftView };
      if (b.error?.code === "draft.stale" && b.draft) {
        setState({ kind: "conflict", current: b.draft });
        return false;
      }
      throw await failure(new Response(JSON.stringify(b), { status: 409 }));
    }
    if (!res.ok) throw await failure(res);
    const d = (await res.json()) as DraftView;
    savedEdits = edits;
    const now = useStore.getState();
    useStore.setState({ draftRevision: d.revision, ...(now.edits === edits ? { dirty: d.dirty } : {}) });
    if (now.edits !== edits) schedule();
    else setState({ kind: "saved", revision: d.revision });
    return true;
  } catch (e) {
    const why = e instanceof ApiFailure ? errText(e) : `the server could not be reached (${errText(e)})`;
    setState({ kind: "error", message: why });
    return false;
  }
}

/**
 * Save now (what is waiting, after any save under way): true when the server draft holds every edit.
 * Leaving, publishing and running call this first.
 */
export async function saveNow(): Promise<boolean> {
  clearTimeout(timer);
  if (inflight) await inflight.catch(() => false);
  if (conflicted()) return false;
  if (!unsaved()) return true;
  inflight = send();
  try {
    return await inflight;
  } finally {
    inflight = undefined;
  }
}

setDraftFlusher(saveNow);

/** The page is hidden or going away: send what is unsaved at once, in a request that outlives the page. */
function flushOnExit(leaving: boolean, e?: BeforeUnloadEvent): void {
  if (!unsaved()) return;
  if (conflicted()) {
    // Edits that cannot be saved without the user's word: the browser asks before the page goes.
    e?.preventDefault();
    return;
  }
  clearTimeout(timer);
  const s = useStore.getState();
  if (s.draft && JSON.stringify(s.draft).length >= KEEPALIVE_LIMIT && e) {
    // Too big to outlive the page: the browser asks the user to stay while the ordinary save runs.
    e.preventDefault();
    void saveNow();
    return;
  }
  const edits = s.edits;
  if (exitSent === edits) return;
  if (!inflight) {
    exitSent = edits;
    inflight = send().finally(() => (inflight = undefined));
  } else if (leaving && inflightRevision !== undefined) {
    // A save under way holds older edits: as the page goes, these follow it on the revision it will have made
    // (a page that stays saves them when that save ends).
    exitSent = edits;
    void send(inflightRevision + 1);
  }
}

window.addEventListener("pagehide", () => flushOnExit(true));
window.addEventListener("beforeunload", (e) => flushOnExit(true, e));
document.addEventListener("visibilitychange", () => {
  if (document.visibilityState === "hidden") flushOnExit(false);
});

useStore.subscribe((s, prev) => {
  if (s.app?.id !== prev.app?.id || s.draftLoads !== prev.draftLoads) {
    // A draft loaded from the server is what the server holds: nothing to save, no conflict left.
    clearTimeout(timer);
    savedEdits = s.edits;
    setState({ kind: "saved", revision: s.draftRevision });
    return;
  }
  if (s.edits !== prev.edits && s.app) schedule();
});

/** The conflict's way out that keeps the other editor's work: their draft replaces this editor's edits. */
export async function loadCurrentDraft(): Promise<void> {
  setState({ kind: "saving" });
  try {
    await useStore.getState().reloadWorkflow();
  } catch (e) {
    setState({ kind: "error", message: errText(e) });
  }
}

/** The conflict's other way out, said explicitly: these edits replace the draft the other editor saved. */
export async function overwriteWithMine(): Promise<boolean> {
  const st = useSaveState.getState().state;
  if (st.kind !== "conflict") return saveNow();
  useStore.setState({ draftRevision: st.current.revision });
  setState({ kind: "pending" });
  return saveNow();
}

/** "← Apps": the edits are saved first; when they cannot be, the user decides whether to leave without them. */
export async function leaveApp(confirmLeave: (why: string) => boolean = (why) => confirm(why)): Promise<boolean> {
  const ok = await saveNow();
  if (!ok) {
    const st = useSaveState.getState().state;
    const why =
      st.kind === "conflict"
        ? `Someone else saved this draft (revision ${st.current.revision}); your last edits are not saved. Leave and lose them?`
        : `Your last edits are not saved${st.kind === "error" ? ` (${st.message})` : ""}. Leave and lose them?`;
    if (!confirmLeave(why)) return false;
  }
  useStore.getState().closeApp();
  return true;
}
