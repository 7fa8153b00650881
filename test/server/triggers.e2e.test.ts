/**
 * Triggers in the studio, in real Chromium (issue 30 item 5): a trigger node's inspector shows the webhook URL with
 * a copy button, an enabled toggle, the schedule's next fire time, and the last deliveries linking to their runs.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM, CHROMIUM_ARGS } from "../support/web-build.js";
import { startTestServer, type TestServer } from "./helpers.js";

const OUT = resolve(import.meta.dirname, "../../test-output");
const YAML = readFileSync(new URL("../fixtures/dify/triggers/webhook-and-schedule.yml", import.meta.url), "utf8");
const HOOK = "1761000000001";
const SCHED = "1761000000002";
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`triggers e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

describe.skipIf(!hasChromium)("trigger nodes in the studio (real browser)", () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  let appId = "";
  let hookId = "";
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    s = await startTestServer();
    const res = await s.api("/api/apps/import", { method: "POST", body: YAML });
    expect(res.status).toBe(201);
    appId = ((await res.json()) as any).app.id;
    hookId = (await s.deps.stores.triggers.list(appId)).find((t) => t.type === "webhook")!.id;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    const context = await browser.newContext({
      viewport: { width: 1400, height: 860 },
      permissions: ["clipboard-read", "clipboard-write"],
    });
    page = await context.newPage();
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(s.url);
    await page.getByTestId("api-key").fill(s.key);
    await page.getByTestId("login").click();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it("webhook: URL with copy, last deliveries linking to their runs, enabled toggle; schedule: next fire time", {
    timeout: 90_000,
  }, async () => {
    const sent = await fetch(`${s.url}/triggers/webhook/${hookId}`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: "e2e@x.y", count: 2 }),
    });
    expect(sent.status).toBe(202);
    const [delivery] = await s.deps.stores.triggers.deliveries(hookId, 1);

    await page.getByTestId("app-list").waitFor();
    await page.goto(`${s.url}/apps/${appId}`);
    await page.locator('.flow-wrap[data-view="ready"]').waitFor();
    await page.locator(`[data-node-id="${HOOK}"]`).click();
    const panel = page.getByTestId("trigger-panel");
    await panel.waitFor();
    const url = `${s.url}/triggers/webhook/${hookId}`;
    expect(await page.getByTestId("trigger-url").textContent()).toBe(url);
    await page.getByTestId("trigger-copy").click();
    await expect.poll(() => page.getByTestId("trigger-copy").textContent()).toBe("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(url);
    const rows = page.getByTestId("trigger-delivery");
    expect(await rows.count()).toBe(1);
    expect(await rows.first().getAttribute("data-state")).toBe("started");
    await page.screenshot({ path: join(OUT, "trigger-webhook.png") });

    // Disabled from the studio: the webhook answers 404 and stores nothing; enabled again.
    await page.getByTestId("trigger-enabled").uncheck();
    await expect.poll(async () => (await s.deps.stores.triggers.get(hookId))!.enabled).toBe(false);
    const off = await fetch(url, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    expect(off.status).toBe(404);
    expect(await page.getByTestId("trigger-enabled").isChecked()).toBe(false);
    await page.getByTestId("trigger-enabled").check();
    await expect.poll(async () => (await s.deps.stores.triggers.get(hookId))!.enabled).toBe(true);

    // The schedule's next fire time (daily 8:00 AM Europe/Berlin).
    await page.locator(`[data-node-id="${SCHED}"]`).click();
    await expect
      .poll(() => page.getByTestId("trigger-next").textContent())
      .toMatch(/^Next: .+ \(0 8 \* \* \*, Europe\/Berlin\)$/);
    await page.screenshot({ path: join(OUT, "trigger-schedule.png") });

    // Back on the webhook, the delivery's run link opens the run at its URL.
    await page.locator(`[data-node-id="${HOOK}"]`).click();
    await page.getByTestId("trigger-run-link").first().click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/apps/${appId}/runs/${delivery!.runId}`);
    expect(pageErrors).toEqual([]);
  });
});
