// The route table is the one source of /api permissions: every registered route has a line (the failure
// names the routes to add), and the permission matrix below is generated from it: each role × each route is
// allowed or 403 as the role's permissions say, and each route with a resource id answers 404 across
// workspaces. Counts are printed; nothing unexpected is allowed.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../src/server/app.js";
import { allows } from "../../src/server/auth/permissions.js";
import { type RouteEntry, routeEntries } from "../../src/server/auth/route-table.js";
import { DEFAULT_WORKSPACE_ID, ROLES, type Role } from "../../src/store/teams.js";
import { memberSession, type Session } from "../support/sessions.js";
import { startTestServer, type TestServer } from "./helpers.js";

describe("the route table", () => {
  it("has an entry for every registered /api route, and no entry for a route that does not exist", async () => {
    const s = await startTestServer({ db: ":memory:" });
    try {
      const registered = new Set(
        createApp(s.deps)
          .routes.filter((r) => r.path.startsWith("/api") && !r.path.endsWith("*"))
          .map((r) => `${r.method} ${r.path}`),
      );
      const table = new Set(routeEntries().map((e) => `${e.method} ${e.path}`));
      const missing = [...registered].filter((r) => !table.has(r));
      const stale = [...table].filter((r) => !registered.has(r));
      expect(missing, `routes without a line in src/server/auth/route-table.ts: ${missing.join(", ")}`).toEqual([]);
      expect(stale, `route-table lines for routes that do not exist: ${stale.join(", ")}`).toEqual([]);
    } finally {
      await s.stop();
    }
  });
});

interface Fixture {
  appId: string;
  runId: string;
  kbId: string;
}

let s: TestServer;
const sessions = new Map<Role, Session>();
let a: Fixture;
let b: Fixture;
let bOwner: Session;

async function json<T>(res: Response): Promise<T> {
  if (!res.ok) throw new Error(`${res.status} ${await res.text()}`);
  return (await res.json()) as T;
}

/** An app, a finished run of it and a knowledge base, made through the API as `headers`' workspace. */
async function makeResources(headers: Record<string, string>): Promise<Fixture> {
  const h = { ...headers, "content-type": "application/json" };
  const { app } = await json<{ app: { id: string } }>(
    await fetch(`${s.url}/api/apps`, { method: "POST", headers: h, body: JSON.stringify({ name: "m" }) }),
  );
  const run = await json<{ runId?: string; id?: string }>(
    await fetch(`${s.url}/api/apps/${app.id}/runs`, {
      method: "POST",
      headers: h,
      body: JSON.stringify({ inputs: {} }),
    }),
  );
  const runId = (run.runId ?? run.id)!;
  // The run's event stream ends when the run does.
  await (await fetch(`${s.url}/api/runs/${runId}/events`, { headers })).text();
  expect((await json<{ status: string }>(await fetch(`${s.url}/api/runs/${runId}`, { headers }))).status).not.toBe(
    "running",
  );
  const kb = await json<{ id: string }>(
    await fetch(`${s.url}/api/knowledge`, { method: "POST", headers: h, body: JSON.stringify({ name: "kb" }) }),
  );
  return { appId: app.id, runId, kbId: kb.id };
}

beforeAll(async () => {
  s = await startTestServer({ db: ":memory:" });
  for (const role of ROLES) sessions.set(role, await memberSession(s.deps.stores, s.url, `${role}@a.test`, role));
  a = await makeResources({ authorization: `Bearer ${s.key}` });
  const wsB = await s.deps.stores.teams.createWorkspace("B");
  bOwner = await memberSession(s.deps.stores, s.url, "owner@b.test", "owner", wsB.id);
  b = await makeResources(bOwner.headers());
}, 120_000);
afterAll(() => s?.stop());

/** The request path of an entry, its resource ids taken from `f`. */
function pathFor(e: RouteEntry, f: Fixture): string {
  const id = e.path.startsWith("/api/runs/") ? f.runId : e.path.startsWith("/api/knowledge/") ? f.kbId : f.appId;
  return e.path.replace(/:(\w+)/g, (_, p: string) => (p === "id" ? id : p === "v" ? "1" : "X_1"));
}

const methodOf = (e: RouteEntry) => (e.method === "ALL" ? "PATCH" : e.method);

/** The status only: bodies of streams (run events, MCP) are not waited for. */
async function statusOf(
  e: RouteEntry,
  path: string,
  headers: Record<string, string>,
): Promise<{ status: number; code?: string }> {
  const method = methodOf(e);
  const res = await fetch(`${s.url}${path}`, {
    method,
    headers: { ...headers, ...(method === "GET" ? {} : { "content-type": "application/json" }) },
    body: method === "GET" ? undefined : "{}",
  });
  let code: string | undefined;
  if (res.status === 403 || res.status === 404 || res.status === 401)
    code = ((await res.json().catch(() => ({}))) as { error?: { code?: string } }).error?.code;
  else await res.body?.cancel();
  return { status: res.status, code };
}

// Deleting the fixture's app or base goes last, so every other route still finds them.
const destroys = (e: RouteEntry) => e.method === "DELETE" && /^\/api\/(apps|knowledge)\/:id$/.test(e.path);
const guarded = () =>
  routeEntries()
    .filter((e) => e.need !== "public")
    .sort((x, y) => Number(destroys(x)) - Number(destroys(y)));

describe("the permission matrix (generated from the route table)", () => {
  it("answers 404 for another workspace's resource on every route with an id, both ways", async () => {
    const unexpected: string[] = [];
    let checks = 0;
    for (const e of guarded().filter((x) => x.path.includes(":id"))) {
      for (const [who, headers, target] of [
        ["owner of A", sessions.get("owner")!.headers(), b],
        ["owner of B", bOwner.headers(), a],
      ] as const) {
        checks++;
        const got = await statusOf(e, pathFor(e, target), headers);
        if (got.status !== 404) unexpected.push(`${who}: ${methodOf(e)} ${e.path} → ${got.status} ${got.code ?? ""}`);
      }
    }
    console.log(
      `cross-workspace: ${checks} requests, ${checks - unexpected.length} answered 404, ${unexpected.length} unexpected`,
    );
    expect(unexpected).toEqual([]);
  }, 120_000);

  it("allows each role exactly what its permissions say on every route (403 otherwise)", async () => {
    const counts = await roleMatrix(
      a,
      (role) => sessions.get(role)!.headers(),
      async (role) => {
        // A logout ends the session the next routes need: sign in again.
        sessions.set(role, await memberSessionAgain(role));
      },
    );
    console.log(`permission matrix (sessions): ${counts.summary}`);
    expect(counts.unexpected).toEqual([]);
  }, 300_000);

  it("a workspace API key with each role behaves as that role on every route", async () => {
    const keys = new Map<Role, string>();
    for (const role of ROLES)
      keys.set(role, (await s.deps.apps.createKey(`${role} key`, { workspaceId: DEFAULT_WORKSPACE_ID, role })).key);
    // Fresh resources: the sessions' matrix deleted the first ones on its last routes.
    const fresh = await makeResources({ authorization: `Bearer ${keys.get("owner")}` });
    const counts = await roleMatrix(fresh, (role) => ({ authorization: `Bearer ${keys.get(role)}` }));
    console.log(`permission matrix (workspace keys): ${counts.summary}`);
    expect(counts.unexpected).toEqual([]);
    // A logout with a key ends no key: it still works after the matrix's logout line.
    expect(
      (await fetch(`${s.url}/api/auth/me`, { headers: { authorization: `Bearer ${keys.get("viewer")}` } })).status,
    ).toBe(200);
  }, 300_000);

  it("lists only the workspace's own apps, runs and knowledge bases", async () => {
    const list = async (path: string, headers: Record<string, string>) =>
      (await (await fetch(`${s.url}${path}`, { headers })).json()) as Record<string, { id: string }[]>;
    const bApps = (await list("/api/apps", bOwner.headers())).apps!.map((x) => x.id);
    expect(bApps).toEqual([b.appId]);
    const aApps = (await list("/api/apps", { authorization: `Bearer ${s.key}` })).apps!.map((x) => x.id);
    expect(aApps).not.toContain(b.appId);
    const bRuns = (await list("/api/runs", bOwner.headers())).runs!.map((x) => x.id);
    expect(bRuns).toEqual([b.runId]);
    const aRuns = (await list("/api/runs", { authorization: `Bearer ${s.key}` })).runs!.map((x) => x.id);
    expect(aRuns).not.toContain(b.runId);
    const bKb = (await list("/api/knowledge", bOwner.headers())).knowledge_bases!.map((x) => x.id);
    expect(bKb).toEqual([b.kbId]);
    expect(await s.deps.stores.teams.ownerOf("app", a.appId)).toBe(DEFAULT_WORKSPACE_ID);
  });
});

/** Each role × each guarded route as `headersOf(role)`: allowed, or 403 auth.forbidden, as the role's permissions say. */
async function roleMatrix(
  f: Fixture,
  headersOf: (role: Role) => Record<string, string>,
  afterLogout?: (role: Role) => Promise<void>,
): Promise<{ unexpected: string[]; summary: string }> {
  const unexpected: string[] = [];
  let allowed = 0;
  let denied = 0;
  for (const e of guarded()) {
    for (const role of ROLES) {
      const got = await statusOf(e, pathFor(e, f), headersOf(role));
      const should = e.need === "session" || (e.need !== "public" && allows(role, e.need));
      if (should && (got.status === 401 || got.status === 403))
        unexpected.push(`${role}: ${methodOf(e)} ${e.path} refused ${got.status} ${got.code}`);
      else if (!should && !(got.status === 403 && got.code === "auth.forbidden"))
        unexpected.push(`${role}: ${methodOf(e)} ${e.path} → ${got.status}, expected 403`);
      else if (should) allowed++;
      else denied++;
      if (e.path === "/api/auth/logout" && should) await afterLogout?.(role);
    }
  }
  const summary = `${guarded().length} routes × ${ROLES.length} roles = ${allowed + denied + unexpected.length} checks, ${allowed} allowed, ${denied} denied (403), ${unexpected.length} unexpected`;
  return { unexpected, summary };
}

let relog = 0;
async function memberSessionAgain(role: Role): Promise<Session> {
  return memberSession(s.deps.stores, s.url, `${role}-${++relog}@a.test`, role);
}
