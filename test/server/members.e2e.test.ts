/**
 * Members management and the workspace switcher in real Chromium (issue 31, item 5): an owner invites by link
 * from the Members panel; the invitee opens the link in another browser, creates the account and is in the
 * workspace with the invited role; the owner makes them a viewer (the studio then disables save and publish, and
 * the API refuses with 403), removes them (their next request is refused), resets a member's password, and
 * switches to another workspace from the header. Screenshots go to test-output/members-*.png.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMember } from "../../src/server/auth/users.js";
import { sampleSignIn } from "../../src/server/sample.js";
import { buildWorkflow } from "../support/build.js";
import { login } from "../support/sessions.js";
import { CHROMIUM, CHROMIUM_ARGS } from "../support/web-build.js";
import { startTestServer, type TestServer } from "./helpers.js";

const OUT = resolve(import.meta.dirname, "../../test-output");
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`members e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

const flow = buildWorkflow({
  nodes: [
    {
      id: "begin",
      type: "start",
      title: "Begin",
      variables: [{ variable: "topic", label: "Topic", type: "text-input", required: true }],
    },
    {
      id: "end",
      type: "end",
      title: "End",
      outputs: [{ variable: "t", value_selector: ["begin", "topic"], value_type: "string" }],
    },
  ],
  edges: [["begin", "end"]],
});

const OWNER = { email: "olive@team.test", password: "olive's long password" };
const INVITEE = { email: "ivan@team.test", password: "ivan's long password" };

describe.skipIf(!hasChromium)("members and workspaces in a real browser", () => {
  let s: TestServer;
  let browser: Browser;
  let owner: Page;
  let invitee: Page;
  let secondWorkspace = "";
  const pageErrors: string[] = [];

  const post = async (key: string, path: string, json: unknown) => {
    const r = await fetch(`${s.url}${path}`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify(json),
    });
    expect(r.status).toBe(201);
  };

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    s = await startTestServer({ host: "127.0.0.1" });
    const { user } = await createMember(s.deps.stores, { ...OWNER, role: "owner" });
    await post(s.key, "/api/apps", { name: "team app", mode: "workflow", workflow: flow });
    // A second workspace the owner also belongs to, with an app of its own: what the switcher switches to.
    const ws = await s.deps.stores.teams.createWorkspace("Second team");
    secondWorkspace = ws.id;
    await s.deps.stores.teams.setMembership(ws.id, user.id, "owner");
    const key = await s.deps.apps.createKey("second", { workspaceId: ws.id, role: "owner" });
    await post(key.key, "/api/apps", { name: "second team's app", mode: "workflow", workflow: flow });
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  async function newPage(url: string): Promise<Page> {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 860 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
    // Removing a member asks first (as deleting an app does).
    page.on("dialog", (d) => void d.accept());
    await page.goto(url);
    return page;
  }
  const memberRow = (email: string) => owner.locator(`[data-testid="member-row"][data-email="${email}"]`);
  const api = (page: Page, method: string, path: string, body?: unknown) =>
    page.evaluate(
      async ([method, path, body]) => {
        const csrf = /(?:^|; )weft_csrf=([^;]+)/.exec(document.cookie)?.[1] ?? "";
        const r = await fetch(path as string, {
          method: method as string,
          headers: { "content-type": "application/json", "x-csrf-token": decodeURIComponent(csrf) },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
        return {
          status: r.status,
          code: ((await r.json().catch(() => ({}))) as { error?: { code?: string } }).error?.code,
        };
      },
      [method, path, body] as const,
    );

  it("the owner invites by link; the invitee creates the account in another browser and is in with that role", {
    timeout: 120_000,
  }, async () => {
    owner = await newPage(s.url);
    await owner.getByTestId("login-email").fill(OWNER.email);
    await owner.getByTestId("login-password").fill(OWNER.password);
    await owner.getByTestId("login-submit").click();
    await owner.getByTestId("app-list").waitFor();
    await owner.getByTestId("members-open").click();
    await memberRow(OWNER.email).waitFor();
    await owner.getByTestId("invite-role").selectOption("editor");
    await owner.getByTestId("invite-create").click();
    const link = owner.getByTestId("invite-link");
    await expect.poll(() => link.inputValue()).toMatch(/\?link=[\w-]+$/);
    const url = await link.inputValue();
    expect(new URL(url).origin).toBe(s.url);
    await owner.screenshot({ path: join(OUT, "members-invite.png") });

    invitee = await newPage(url);
    await expect.poll(() => invitee.getByTestId("link-what").textContent()).toContain("as editor");
    await invitee.getByTestId("link-email").fill(INVITEE.email);
    await invitee.getByTestId("link-password").fill(INVITEE.password);
    await invitee.screenshot({ path: join(OUT, "members-link.png") });
    await invitee.getByTestId("link-accept").click();
    await invitee.getByTestId("app-list").waitFor();
    // The single-use link is out of the address: a reload does not try it again.
    expect(new URL(invitee.url()).search).toBe("");
    await expect.poll(() => invitee.getByTestId("whoami").textContent()).toBe(`${INVITEE.email} · editor`);
    expect(await invitee.getByRole("link", { name: "team app", exact: true }).count()).toBe(1);
    // The link was single use: it is gone now.
    const again = await api(invitee, "GET", `/api/invites/${new URL(url).searchParams.get("link")}`);
    expect(again).toEqual({ status: 404, code: "invite.not_found" });
    await invitee.getByRole("link", { name: "team app", exact: true }).click();
    await invitee.locator('.flow-wrap[data-view="ready"]').waitFor();
    // A signed-in session's studio writes the app's URL as a key's does (a reload comes back to it).
    await expect.poll(() => new URL(invitee.url()).pathname).toMatch(/^\/apps\/[\w-]+$/);
    expect(await invitee.getByTestId("save-status").getAttribute("data-state")).not.toBe("readonly");
    expect(await invitee.getByTestId("publish").isDisabled()).toBe(false);
    // The owner's list shows the new member with the role.
    await owner.getByTestId("members-open").click();
    await owner.getByTestId("members-open").click();
    await expect.poll(() => memberRow(INVITEE.email).getByTestId("member-role").inputValue()).toBe("editor");
  });

  it("made a viewer, the invitee's studio disables save and publish, and the API refuses (403)", {
    timeout: 120_000,
  }, async () => {
    await memberRow(INVITEE.email).getByTestId("member-role").selectOption("viewer");
    await expect.poll(() => owner.getByTestId("notice").textContent()).toBe("role changed to viewer");
    const appId = new URL(invitee.url()).pathname.split("/")[2]!;
    // The refused write is what the invitee's page meets first; the studio then reads the role again.
    const refused = await api(invitee, "PUT", `/api/apps/${appId}/draft`, { workflow: flow });
    expect(refused).toEqual({ status: 403, code: "auth.forbidden" });
    await invitee.getByTestId("back-to-apps").click();
    await invitee.getByTestId("app-list").waitFor();
    await expect.poll(() => invitee.getByTestId("whoami").textContent()).toBe(`${INVITEE.email} · viewer`);
    await invitee.getByRole("link", { name: "team app", exact: true }).click();
    await invitee.locator('.flow-wrap[data-view="ready"]').waitFor();
    await expect.poll(() => invitee.getByTestId("save-status").getAttribute("data-state")).toBe("readonly");
    expect(await invitee.getByTestId("save").isDisabled()).toBe(true);
    expect(await invitee.getByTestId("publish").isDisabled()).toBe(true);
    expect(await api(invitee, "POST", `/api/apps/${appId}/publish`, {})).toEqual({
      status: 403,
      code: "auth.forbidden",
    });
    await invitee.screenshot({ path: join(OUT, "members-viewer.png") });
  });

  it("removed, the invitee's next request is refused and the studio goes back to the sign-in", {
    timeout: 120_000,
  }, async () => {
    await memberRow(INVITEE.email).getByTestId("member-remove").click();
    await expect.poll(() => memberRow(INVITEE.email).count()).toBe(0);
    expect(await api(invitee, "GET", "/api/apps")).toEqual({ status: 401, code: "auth.not_member" });
    await invitee.getByTestId("back-to-apps").click();
    await invitee.getByTestId("password-login").waitFor();
    await expect.poll(() => invitee.getByTestId("login-error").textContent()).toContain("session has ended");
    // Signing in again is refused too: the account belongs to no workspace now.
    const r = await fetch(`${s.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(INVITEE),
    });
    expect(r.status).toBe(403);
    await invitee.context().close();
  });

  it("the owner resets a member's password: the old one stops working, the new one signs in", {
    timeout: 120_000,
  }, async () => {
    await createMember(s.deps.stores, { email: "rita@team.test", password: "rita's old password", role: "runner" });
    await owner.getByTestId("members-open").click();
    await owner.getByTestId("members-open").click();
    const row = memberRow("rita@team.test");
    await row.getByTestId("member-reset").click();
    await row.getByTestId("member-new-password").fill("rita's new password");
    await row.getByRole("button", { name: "Set" }).click();
    await expect
      .poll(() => owner.getByTestId("notice").textContent())
      .toMatch(/^password reset; \d+ session\(s\) signed out$/);
    await expect(login(s.url, "rita@team.test", "rita's old password")).rejects.toThrow(/401/);
    await login(s.url, "rita@team.test", "rita's new password");
  });

  it("the header's switcher moves the owner to the other workspace and back", { timeout: 120_000 }, async () => {
    const switcher = owner.getByTestId("workspace-switcher");
    expect(await switcher.inputValue()).toBe("default");
    await switcher.selectOption(secondWorkspace);
    await owner.getByRole("link", { name: "second team's app", exact: true }).waitFor();
    expect(await owner.getByRole("link", { name: "team app", exact: true }).count()).toBe(0);
    expect(await owner.evaluate(() => fetch("/api/auth/me").then((r) => r.json()))).toMatchObject({
      workspace: { id: secondWorkspace },
      role: "owner",
    });
    // The open Members panel follows: the second workspace's members, only the owner.
    await expect.poll(() => owner.getByTestId("member-row").count()).toBe(1);
    await memberRow(OWNER.email).waitFor();
    await owner.screenshot({ path: join(OUT, "members-switched.png") });
    await owner.reload();
    await owner.getByRole("link", { name: "second team's app", exact: true }).waitFor();
    await owner.getByTestId("workspace-switcher").selectOption("default");
    await owner.getByRole("link", { name: "team app", exact: true }).waitFor();
    expect(await owner.getByRole("link", { name: "second team's app", exact: true }).count()).toBe(0);
  });

  it("an existing account opens an invitation with its password and joins the workspace (now it has two)", {
    timeout: 120_000,
  }, async () => {
    const other = { email: "omar@team.test", password: "omar's long password" };
    await createMember(s.deps.stores, { ...other, role: "editor", workspaceId: secondWorkspace });
    const res = await fetch(`${s.url}/api/members/invites`, {
      method: "POST",
      headers: { authorization: `Bearer ${s.key}`, "content-type": "application/json" },
      body: JSON.stringify({ role: "runner" }),
    });
    const { url } = (await res.json()) as { url: string };
    const page = await newPage(url);
    await expect.poll(() => page.getByTestId("link-what").textContent()).toContain("as runner");
    await page.getByTestId("link-email").fill(other.email);
    await page.getByTestId("link-password").fill("not omar's password");
    await page.getByTestId("link-accept").click();
    await expect.poll(() => page.getByTestId("link-error").textContent()).toBe("The email or the password is wrong.");
    await page.getByTestId("link-password").fill(other.password);
    await page.getByTestId("link-accept").click();
    await page.getByTestId("app-list").waitFor();
    await expect.poll(() => page.getByTestId("whoami").textContent()).toBe(`${other.email} · runner`);
    await page.getByRole("link", { name: "team app", exact: true }).waitFor();
    const switcher = page.getByTestId("workspace-switcher");
    expect(await switcher.inputValue()).toBe("default");
    expect(await switcher.locator("option").allTextContents()).toEqual(
      expect.arrayContaining(["Default (runner)", "Second team (editor)"]),
    );
    // A runner manages no one: no Members button.
    expect(await page.getByTestId("members-open").count()).toBe(0);
    await page.context().close();
  });

  it("a used or unknown link says so and leads to the sign-in; a sign-in link (weft serve --sample) signs in at once", {
    timeout: 120_000,
  }, async () => {
    const page = await newPage(`${s.url}/?link=no-such-token`);
    await expect.poll(() => page.getByTestId("link-error").textContent()).toContain("unknown, already used or expired");
    await page.getByTestId("link-cancel").click();
    await page.getByTestId("password-login").waitFor();
    const signIn = await sampleSignIn(s.deps.stores, s.url);
    await page.goto(signIn.url);
    await page.getByTestId("app-list").waitFor();
    await expect.poll(() => page.getByTestId("whoami").textContent()).toBe(`${signIn.email} · owner`);
    expect(new URL(page.url()).search).toBe("");
    await page.context().close();
  });

  it("had no page errors", () => {
    expect(pageErrors).toEqual([]);
  });
});
