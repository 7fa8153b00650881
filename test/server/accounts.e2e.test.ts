/**
 * The accounts journeys in real Chromium (issue 31, Must show): sign in, a wrong password and an unknown email
 * answered alike, sign out, SSO through a real OpenID provider's own login page, and a viewer who cannot save or
 * publish (the studio says read-only and never tries; the API refuses the viewer's write with 403).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type OidcConfig, oidcSettings } from "../../src/server/auth/oidc/config.js";
import { createMember } from "../../src/server/auth/users.js";
import { buildWorkflow } from "../support/build.js";
import { startOidcProvider, type TestProvider } from "../support/oidc-provider.js";
import { CHROMIUM, CHROMIUM_ARGS } from "../support/web-build.js";
import { startTestServer, type TestServer } from "./helpers.js";

const OUT = resolve(import.meta.dirname, "../../test-output");
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`accounts e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

const app = buildWorkflow({
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

describe.skipIf(!hasChromium)("accounts in a real browser", () => {
  let s: TestServer;
  let idp: TestProvider;
  let cfg: OidcConfig;
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    cfg = oidcSettings(
      {
        issuer: "http://127.0.0.1:1",
        clientId: "weft-test",
        clientSecret: "x",
        redirectUrl: "http://127.0.0.1:1/api/auth/oidc/callback",
        allowInsecureIssuer: true,
        mapping: [{ emailDomain: "example.com", workspace: "default", role: "editor" }],
      },
      {},
    )!;
    s = await startTestServer({ host: "127.0.0.1", oidc: cfg });
    // Both ports are known only now; the server reads these at the first SSO sign-in.
    cfg.redirectUrl = `${s.url}/api/auth/oidc/callback`;
    idp = await startOidcProvider(cfg.redirectUrl);
    Object.assign(cfg, { issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret });
    await createMember(s.deps.stores, { email: "ed@example.com", password: "ed's long password", role: "editor" });
    await createMember(s.deps.stores, { email: "vi@example.com", password: "vi's long password", role: "viewer" });
    const res = await s.api("/api/apps", {
      method: "POST",
      json: { name: "shared app", mode: "workflow", workflow: app },
    });
    expect(res.status).toBe(201);
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await idp?.stop();
  });

  async function freshPage(): Promise<Page> {
    const ctx = await browser.newContext({ viewport: { width: 1400, height: 860 } });
    const page = await ctx.newPage();
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(s.url);
    return page;
  }
  async function signIn(page: Page, email: string, password: string) {
    await page.getByTestId("login-email").fill(email);
    await page.getByTestId("login-password").fill(password);
    const answered = page.waitForResponse((r) => r.url().endsWith("/api/auth/login"));
    await page.getByTestId("login-submit").click();
    const res = await answered;
    return { status: res.status(), body: await res.text() };
  }

  it("a wrong password and an unknown email get the same message; the right one signs in; logout signs out", {
    timeout: 90_000,
  }, async () => {
    const page = await freshPage();
    const wrong = await signIn(page, "ed@example.com", "not the password");
    const error = page.getByTestId("login-error");
    await expect.poll(() => error.textContent()).toBe("The email or the password is wrong.");
    const unknown = await signIn(page, "nobody@example.com", "not the password");
    // The same status, body and words, so neither the screen nor the API tells which accounts exist.
    expect(wrong.status).toBe(401);
    expect(unknown).toEqual(wrong);
    await expect.poll(() => error.textContent()).toBe("The email or the password is wrong.");
    await signIn(page, "ed@example.com", "ed's long password");
    await page.getByTestId("app-list").waitFor();
    expect(await page.evaluate(() => fetch("/api/auth/me").then((r) => r.json()))).toMatchObject({
      user: { email: "ed@example.com" },
      role: "editor",
    });
    await page.getByTestId("logout").click();
    await page.getByTestId("password-login").waitFor();
    // The session is over on the server too, not only forgotten by the page.
    expect(await page.evaluate(() => fetch("/api/auth/me").then((r) => r.status))).toBe(401);
    await page.reload();
    await page.getByTestId("password-login").waitFor();
    await page.context().close();
  });

  it("a viewer sees the app read-only: no save attempted, save and publish disabled, and the API refuses with 403", {
    timeout: 90_000,
  }, async () => {
    const page = await freshPage();
    const writes: string[] = [];
    page.on("request", (r) => {
      if (r.method() !== "GET" && r.url().includes("/api/apps/"))
        writes.push(`${r.method()} ${new URL(r.url()).pathname}`);
    });
    await signIn(page, "vi@example.com", "vi's long password");
    await page.getByTestId("app-list").waitFor();
    await page.getByRole("link", { name: "shared app", exact: true }).click();
    await page.locator('.flow-wrap[data-view="ready"]').waitFor();
    const status = page.getByTestId("save-status");
    await expect.poll(() => status.getAttribute("data-state")).toBe("readonly");
    expect(await status.textContent()).toBe("Read-only");
    expect(await page.getByTestId("save").isDisabled()).toBe(true);
    expect(await page.getByTestId("publish").isDisabled()).toBe(true);
    expect(await page.getByTestId("auto-layout").isDisabled()).toBe(true);
    // Dragging a node is the edit a viewer could still try: the canvas does not move it, nothing is sent.
    // (Dragging a node that cannot move pans the canvas, so its place is measured from the other node.)
    const node = page.locator('[data-node-id="end"]');
    const offset = async () => {
      const [e, b] = [await node.boundingBox(), await page.locator('[data-node-id="begin"]').boundingBox()];
      return { dx: e!.x - b!.x, dy: e!.y - b!.y };
    };
    const before = await offset();
    const box = (await node.boundingBox())!;
    await page.mouse.move(box.x + 20, box.y + 10);
    await page.mouse.down();
    await page.mouse.move(box.x + 220, box.y + 160, { steps: 5 });
    await page.mouse.up();
    expect(await offset()).toEqual(before);
    expect(await status.getAttribute("data-state")).toBe("readonly");
    // The server refuses the viewer's writes whatever the page shows.
    const refused = await page.evaluate(async () => {
      const csrf = /(?:^|; )weft_csrf=([^;]+)/.exec(document.cookie)?.[1] ?? "";
      const r = await fetch("/api/apps/import", {
        method: "POST",
        headers: { "content-type": "text/yaml", "x-csrf-token": csrf },
        body: "app: {}",
      });
      return { status: r.status, body: await r.json() };
    });
    expect(refused.status).toBe(403);
    expect(writes.filter((w) => !w.endsWith("/api/apps/import"))).toEqual([]);
    await page.screenshot({ path: join(OUT, "accounts-viewer.png") });
    await page.context().close();
  });

  it("signs in with SSO through the provider's own login page and lands in the studio signed in", {
    timeout: 90_000,
  }, async () => {
    idp.people.set("sso-ann", { email: "ann@example.com", email_verified: true });
    const page = await freshPage();
    const sso = page.getByTestId("sso-login");
    await expect.poll(() => sso.textContent()).toBe("Sign in with SSO");
    await sso.click();
    // The provider's development pages: a login form, then a consent screen.
    await page.waitForURL((u) => u.origin === idp.issuer);
    await page.locator('input[name="login"]').fill("sso-ann");
    await page.locator('input[name="password"]').fill("any password");
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((u) => u.origin === s.url || /consent|interaction/.test(u.pathname));
    if (new URL(page.url()).origin === idp.issuer) await page.locator('button[type="submit"]').click();
    await page.getByTestId("app-list").waitFor();
    expect(new URL(page.url()).origin).toBe(s.url);
    expect(await page.evaluate(() => fetch("/api/auth/me").then((r) => r.json()))).toMatchObject({
      kind: "session",
      user: { email: "ann@example.com" },
      role: "editor",
    });
    await page.screenshot({ path: join(OUT, "accounts-sso.png") });
    await page.context().close();
  });

  it("an SSO refusal is said on the sign-in screen", { timeout: 90_000 }, async () => {
    idp.people.set("sso-eve", { email: "eve@outsider.net", email_verified: true });
    const page = await freshPage();
    await page.getByTestId("sso-login").click();
    await page.waitForURL((u) => u.origin === idp.issuer);
    await page.locator('input[name="login"]').fill("sso-eve");
    await page.locator('input[name="password"]').fill("any password");
    await page.locator('button[type="submit"]').click();
    await page.waitForURL((u) => u.origin === s.url || /consent|interaction/.test(u.pathname));
    if (new URL(page.url()).origin === idp.issuer) await page.locator('button[type="submit"]').click();
    const refusal = page.getByTestId("sso-error");
    await expect.poll(() => refusal.textContent()).toContain("eve@outsider.net");
    expect(await refusal.textContent()).toContain("no auth.oidc.mapping rule");
    // Taken out of the address, so a reload does not say it again.
    expect(new URL(page.url()).search).toBe("");
    await page.context().close();
  });

  it("had no page errors", () => {
    expect(pageErrors).toEqual([]);
  });
});
