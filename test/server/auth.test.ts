// Accounts and sessions over real HTTP: sign-in, the same 401 for an unknown email and a wrong password,
// CSRF on cookie requests, logout (here and everywhere), the import write probe by role, throttling of a
// password-guessing loop that leaves another client's right password working, and `weft users create`.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMember } from "../../src/server/auth/users.js";
import { login, memberSession, sessionFrom } from "../support/sessions.js";
import { WEFT_BIN } from "../support/weft-bin.js";
import { corpusFile, startTestServer, type TestServer } from "./helpers.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ host: "127.0.0.1" });
});
afterAll(() => s?.stop());

const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  fetch(`${s.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(body),
  });
/** A POST from another loopback address (node's http binds the client socket to `localAddress`). */
function postFrom(localAddress: string, path: string, body: unknown): Promise<{ status: number; cookies: string[] }> {
  const u = new URL(`${s.url}${path}`);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        localAddress,
        headers: { "content-type": "application/json" },
      },
      (res) => {
        res.resume();
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, cookies: [res.headers["set-cookie"] ?? []].flat() }),
        );
      },
    );
    req.on("error", reject);
    req.end(JSON.stringify(body));
  });
}
const yml = () =>
  readFileSync(
    corpusFile("Akabane71__dify-workflow-cli/tests/fixtures/workflow/conditional_hello_branching_workflow.yml"),
    "utf8",
  );

describe("sign-in", () => {
  it("answers 200 with an HTTP-only SameSite session cookie and a CSRF cookie; the session reads /api", async () => {
    await createMember(s.deps.stores, { email: "Owner@Example.com", password: "correct horse", role: "owner" });
    const res = await post("/api/auth/login", { email: "owner@example.com", password: "correct horse" });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { role: string; user: { email: string }; csrfToken: string };
    expect(body).toMatchObject({ role: "owner", user: { email: "owner@example.com" } });
    const cookies = res.headers.getSetCookie();
    const session = cookies.find((c) => c.startsWith("weft_session="))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Lax/i);
    const csrf = cookies.find((c) => /^[^=]*csrf[^=]*=/.test(c))!;
    expect(csrf).not.toMatch(/HttpOnly/i);
    expect(csrf).toContain(body.csrfToken);
    const me = await fetch(`${s.url}/api/auth/me`, { headers: sessionFrom(res).headers() });
    expect(await me.json()).toMatchObject({ kind: "session", role: "owner", workspace: { id: "default" } });
  });

  it("answers an unknown email and a wrong password with the same 401 body", async () => {
    await createMember(s.deps.stores, { email: "known@example.com", password: "right password", role: "viewer" });
    const wrong = await post("/api/auth/login", { email: "known@example.com", password: "wrong password" });
    const unknown = await post("/api/auth/login", { email: "nobody@example.com", password: "wrong password" });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(await wrong.text()).toBe(await unknown.text());
    expect(wrong.headers.getSetCookie()).toEqual([]);
  });

  it("refuses a malformed body with a typed 400", async () => {
    const res = await post("/api/auth/login", { email: 3 });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: { code: "auth.invalid_request" } });
  });
});

describe("the write probe POST /api/apps/import", () => {
  const importAs = (headers: Record<string, string>) =>
    fetch(`${s.url}/api/apps/import`, { method: "POST", headers, body: yml() });

  it("401 without a session, 403 for a viewer, 403 without the CSRF header, 201 for an editor", async () => {
    expect((await importAs({})).status).toBe(401);
    const viewer = await memberSession(s.deps.stores, s.url, "viewer@example.com", "viewer");
    const v = await importAs(viewer.headers());
    expect(v.status).toBe(403);
    expect(await v.json()).toMatchObject({ error: { code: "auth.forbidden" } });
    const editor = await memberSession(s.deps.stores, s.url, "editor@example.com", "editor");
    const noCsrf = await importAs({ cookie: editor.cookie });
    expect(noCsrf.status).toBe(403);
    expect(await noCsrf.json()).toMatchObject({ error: { code: "auth.csrf" } });
    const badCsrf = await importAs({ cookie: editor.cookie, "x-csrf-token": "x".repeat(editor.csrf.length) });
    expect(badCsrf.status).toBe(403);
    expect((await importAs(editor.headers())).status).toBe(201);
    // API keys keep every right, as before teams.
    expect((await importAs({ authorization: `Bearer ${s.key}` })).status).toBe(201);
  });
});

describe("logout", () => {
  it("ends this session; with everywhere, every session of the account", async () => {
    await createMember(s.deps.stores, { email: "multi@example.com", password: "multi password", role: "editor" });
    const a = await login(s.url, "multi@example.com", "multi password");
    const b = await login(s.url, "multi@example.com", "multi password");
    const c = await login(s.url, "multi@example.com", "multi password");
    const out = await post("/api/auth/logout", {}, a.headers());
    expect(await out.json()).toMatchObject({ sessionsEnded: 1 });
    expect(out.headers.getSetCookie().join("\n")).toMatch(/weft_session=;/);
    expect((await fetch(`${s.url}/api/apps`, { headers: a.headers() })).status).toBe(401);
    expect((await fetch(`${s.url}/api/apps`, { headers: b.headers() })).status).toBe(200);
    expect(await (await post("/api/auth/logout", { everywhere: true }, b.headers())).json()).toMatchObject({
      sessionsEnded: 2,
    });
    const gone = await fetch(`${s.url}/api/apps`, { headers: c.headers() });
    expect(gone.status).toBe(401);
    expect(await gone.json()).toMatchObject({ error: { code: "auth.session_expired" } });
  });
});

describe("throttling", () => {
  it("1,000 wrong passwords from one loopback address are throttled; the right one from another client works", async () => {
    await createMember(s.deps.stores, { email: "target@example.com", password: "the right one", role: "viewer" });
    const statuses: number[] = [];
    // Ten at a time, as a guessing loop would; each answer is awaited.
    for (let i = 0; i < 1000; i += 10)
      statuses.push(
        ...(await Promise.all(
          Array.from({ length: 10 }, async (_, j) => {
            const r = await post("/api/auth/login", { email: "target@example.com", password: `guess-${i + j}` });
            await r.arrayBuffer();
            return r.status;
          }),
        )),
      );
    const throttled = statuses.filter((x) => x === 429).length;
    const refused = statuses.filter((x) => x === 401).length;
    console.log(`brute force: ${statuses.length} attempts, ${refused} answered 401, ${throttled} throttled (429)`);
    expect(refused + throttled).toBe(1000);
    expect(refused).toBeLessThanOrEqual(10);
    // The attacker's address is throttled even with the right password...
    expect((await post("/api/auth/login", { email: "target@example.com", password: "the right one" })).status).toBe(
      429,
    );
    // ...while another client (another loopback address) signs in.
    const res = await postFrom("127.0.0.2", "/api/auth/login", {
      email: "target@example.com",
      password: "the right one",
    });
    expect(res.status).toBe(200);
    expect(res.cookies.some((c) => c.startsWith("weft_session="))).toBe(true);
  }, 120_000);
});

describe("weft users create", () => {
  it("creates an account from --password-stdin that signs in; bad input is a typed error naming the field", async () => {
    const db = join(s.dir, "weft.db");
    const run = (args: string[], input: string) =>
      spawnSync(WEFT_BIN, ["users", "create", ...args, "--db", db], { input, encoding: "utf8" });
    const ok = run(["--email", "cli@example.com", "--role", "runner", "--password-stdin"], "from stdin pw\n");
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/cli@example\.com \(runner\)/);
    const me = await login(s.url, "cli@example.com", "from stdin pw");
    expect(await (await fetch(`${s.url}/api/auth/me`, { headers: me.headers() })).json()).toMatchObject({
      role: "runner",
    });
    const dup = run(["--email", "CLI@example.com", "--role", "viewer", "--password-stdin"], "another pw\n");
    expect(dup.status).not.toBe(0);
    expect(dup.stderr).toMatch(/user\.exists/);
    const role = run(["--email", "r@example.com", "--role", "god", "--password-stdin"], "another pw\n");
    expect(role.stderr).toMatch(/user\.invalid_role: role: "god"/);
    const short = run(["--email", "p@example.com", "--role", "viewer", "--password-stdin"], "short\n");
    expect(short.stderr).toMatch(/user\.invalid_password: password:/);
    const email = run(["--email", "not-an-email", "--role", "viewer", "--password-stdin"], "long enough\n");
    expect(email.stderr).toMatch(/user\.invalid_email: email:/);
  }, 60_000);
});
