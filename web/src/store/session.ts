import { ApiFailure, api, getKey, headers, setForbiddenHandler, setKey, setUnauthorizedHandler } from "../api";
import type { AppInfo, NodeTypeInfo } from "../types";
import type { Me, WorkspaceChoice } from "./entities";
import { errText } from "./errText";
import { flushDraft } from "./flush";
import type { SessionSlice, Store } from "./state";

const SESSION_ENDED = "Your session has ended (signed out elsewhere, or the server no longer has it). Sign in again.";

const STALE_KEY =
  "The server no longer accepts the API key saved in this browser (the server was restarted with another database, or the key was revoked). Sign in with a current key: `weft serve --sample` prints one, `weft keys create` makes one.";

/** One message for an unknown email and a wrong password, as the server answers both alike. */
function signInRefusal(status: number, message?: string): string {
  if (status === 401) return "The email or the password is wrong.";
  if (status === 429) return "Too many failed sign-ins from here. Wait a few minutes and try again.";
  return message ?? `Sign-in failed (HTTP ${status}).`;
}

/** What the studio loads on entering a workspace. */
async function enter() {
  const me = await api<Me>("/api/auth/me");
  const { apps } = await api<{ apps: AppInfo[] }>("/api/apps");
  const { nodeTypes } = await api<{ nodeTypes: NodeTypeInfo[] }>("/api/node-types");
  const { workspaces } = await api<{ workspaces: WorkspaceChoice[] }>("/api/auth/workspaces");
  return { me, apps, nodeTypes, workspaces, team: undefined };
}

/** A sign-in (or link) refused: the server's message, as the login shows it. */
async function refusalOf(res: Response): Promise<{ code: string; message: string }> {
  const body = (await res.json().catch(() => ({}))) as { error?: { code?: string; message?: string } };
  return { code: body.error?.code ?? "http", message: signInRefusal(res.status, body.error?.message) };
}

const postStudio = (path: string, body: unknown) =>
  fetch(path, {
    method: "POST",
    headers: { "content-type": "application/json", "x-weft-client": "studio" },
    body: JSON.stringify(body),
  });

async function login({ set, get }: Store, key: string) {
  const k = key.trim();
  // A key already held (stored in the browser) that fails is stale; a newly typed one is just wrong.
  const stored = k === get().key;
  setKey(k);
  set({ authError: undefined });
  try {
    set({ key: k, ...(await enter()) });
  } catch (e) {
    setKey("");
    set({ key: "", authError: stored && e instanceof ApiFailure && e.status === 401 ? STALE_KEY : errText(e) });
  }
}

async function signIn({ set }: Store, email: string, password: string) {
  setKey("");
  set({ authError: undefined });
  const res = await postStudio("/api/auth/login", { email, password });
  if (!res.ok) {
    set({ authError: (await refusalOf(res)).message });
    return;
  }
  try {
    set({ key: "", sessionChecked: true, ...(await enter()) });
  } catch (e) {
    set({ me: undefined, authError: errText(e) });
  }
}

async function acceptLink({ set }: Store, token: string, account?: { email: string; password: string }) {
  setKey("");
  set({ authError: undefined });
  const res = await postStudio(`/api/invites/${encodeURIComponent(token)}/accept`, account ?? {});
  if (!res.ok) {
    const { code, message } = await refusalOf(res);
    throw new ApiFailure(res.status, code, message);
  }
  set({ key: "", sessionChecked: true, ...(await enter()) });
}

export function sessionSlice(store: Store): SessionSlice {
  const { set, get } = store;
  setUnauthorizedHandler(() => {
    // A refused key mid-session (or a stale one on page load) always leads back to the login.
    if (get().key) get().logout(STALE_KEY);
    else if (get().me) get().logout(SESSION_ENDED);
  });
  setForbiddenHandler(() => void get().refreshMe());

  return {
    key: getKey(),
    sessionChecked: false,
    workspaces: [],
    login: (key) => login(store, key),
    signIn: (email, password) => signIn(store, email, password),
    async resumeSession() {
      if (get().key || get().sessionChecked) return;
      const res = await fetch("/api/auth/me", { headers: { "x-weft-client": "studio" } });
      if (res.ok) {
        try {
          set({ ...(await enter()), sessionChecked: true });
          return;
        } catch {
          // Signed out meanwhile: the login below.
        }
      }
      set({ sessionChecked: true });
    },
    acceptLink: (token, account) => acceptLink(store, token, account),
    async refreshMe() {
      if (!get().me) return;
      try {
        set({ me: await api<Me>("/api/auth/me") });
      } catch {
        // A 401 has already led back to the sign-in.
      }
    },
    async switchWorkspace(workspaceId) {
      if (
        get().app &&
        !(await flushDraft().then(
          () => true,
          () => false,
        ))
      )
        return;
      try {
        await api("/api/auth/switch", { json: { workspaceId } });
        set({
          app: undefined,
          saved: undefined,
          draft: undefined,
          review: undefined,
          notice: undefined,
          ...(await enter()),
        });
      } catch (e) {
        get().say("error", errText(e));
      }
    },
    can(permission) {
      const me = get().me;
      return me === undefined || me.permissions.includes(permission);
    },
    logout(message) {
      if (get().me?.kind === "session")
        void fetch("/api/auth/logout", {
          method: "POST",
          headers: headers({ "content-type": "application/json" }),
          body: "{}",
        }).catch(() => {});
      setKey("");
      set({
        key: "",
        me: undefined,
        workspaces: [],
        team: undefined,
        sessionChecked: true,
        app: undefined,
        apps: [],
        nodeTypes: [],
        saved: undefined,
        draft: undefined,
        notice: undefined,
        authError: message,
      });
    },
  };
}
