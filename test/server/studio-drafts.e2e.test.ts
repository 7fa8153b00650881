/**
 * Issue 29's studio, in real Chromium against a real server on loopback: autosaved drafts that survive a reload
 * and "← Apps" (errors and all), a stale save shown as a conflict, Publish refused while invalid, `/v1` (through
 * the official dify-client package) running the published version while the draft differs, the Logs view, and a
 * paused run reopened from its deep link and answered there.
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { CompletionClient } from "dify-client";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow, tpl } from "../support/build.js";
import { CHROMIUM, CHROMIUM_ARGS } from "../support/web-build.js";
import { startTestServer, type TestServer } from "./helpers.js";

const OUT = resolve(import.meta.dirname, "../../test-output");
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`studio drafts e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

// dify-client's index.d.ts predates its index.js: runWorkflow exists at run time.
type WorkflowClient = CompletionClient & {
  runWorkflow(inputs: Record<string, unknown>, user: string, stream?: boolean): Promise<any>;
};

const wrapApp = buildWorkflow({
  nodes: [
    {
      id: "start",
      type: "start",
      title: "Start",
      variables: [{ variable: "q", label: "Q", type: "text-input", required: true }],
    },
    tpl("wrap", "[{{ q }}]", { q: ["start", "q"] }, { title: "Wrap" }),
    { id: "end", type: "end", title: "End", outputs: [{ variable: "out", value_selector: ["wrap", "output"] }] },
  ],
  edges: [
    ["start", "wrap"],
    ["wrap", "end"],
  ],
});

const approvalApp = buildWorkflow({
  nodes: [
    {
      id: "start",
      type: "start",
      title: "Start",
      variables: [{ variable: "item", label: "Item", type: "text-input", required: true }],
    },
    {
      id: "ask",
      type: "human-input",
      title: "Manager approval",
      form_content: "Approve {{#start.item#}}?\nReason: {{#$output.reason#}}",
      inputs: [{ type: "paragraph", output_variable_name: "reason" }],
      user_actions: [
        { id: "approve", title: "Approve", button_style: "primary" },
        { id: "reject", title: "Reject", button_style: "default" },
      ],
      timeout: 1,
      timeout_unit: "day",
    },
    tpl("yes", "approved: {{ r }}", { r: ["ask", "reason"] }, { title: "Approved" }),
    tpl("no", "rejected: {{ r }}", { r: ["ask", "reason"] }, { title: "Rejected" }),
    tpl("late", "expired", {}, { title: "Expired" }),
    {
      id: "agg",
      type: "variable-aggregator",
      title: "Outcome",
      output_type: "string",
      variables: [
        ["yes", "output"],
        ["no", "output"],
        ["late", "output"],
      ],
    },
    { id: "end", type: "end", title: "End", outputs: [{ variable: "decision", value_selector: ["agg", "output"] }] },
  ],
  edges: [
    ["start", "ask"],
    ["ask", "approve", "yes"],
    ["ask", "reject", "no"],
    ["ask", "__timeout", "late"],
    ["yes", "agg"],
    ["no", "agg"],
    ["late", "agg"],
    ["agg", "end"],
  ],
});

describe.skipIf(!hasChromium)("studio drafts, publish and deep links in a real browser", () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  let wrapId: string;
  let appKey: string;
  const pageErrors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(OUT, `${name}.png`) });

  const create = async (name: string, workflow: unknown): Promise<string> => {
    const res = await s.api("/api/apps", { method: "POST", json: { name, mode: "workflow", workflow } });
    expect(res.status).toBe(201);
    return ((await res.json()) as any).app.id;
  };
  const json = async (path: string, init?: Parameters<TestServer["api"]>[1]) => {
    const res = await s.api(path, init);
    return { status: res.status, body: (await res.json()) as any };
  };
  const serverDraft = async (id: string) => (await json(`/api/apps/${id}/draft`)).body;
  const node = (wf: any, id: string) => wf.nodes.find((n: any) => n.id === id);
  const saved = () => page.locator('[data-testid="save-status"][data-state="saved"]').waitFor();
  const openByName = async (name: string) => {
    await page.getByTestId("app-list").waitFor();
    await page.getByRole("link", { name, exact: true }).click();
    await page.getByTestId("editor").waitFor();
    await page.locator('.flow-wrap[data-view="ready"]').waitFor();
  };
  /** Replace the Wrap node's template in its editor, as typed text. */
  const setTemplate = async (text: string) => {
    await page.locator('[data-node-id="wrap"]').click();
    const editor = page.locator('[data-testid="template-editor"] .cm-content');
    await editor.click();
    await page.keyboard.press("Control+A");
    await page.keyboard.insertText(text);
    await expect.poll(() => editor.textContent()).toBe(text);
  };

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    s = await startTestServer();
    wrapId = await create("drafted", wrapApp);
    appKey = (await s.deps.stores.service.createAppKey(wrapId)).key;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
    await page.goto(s.url);
    await page.getByTestId("api-key").fill(s.key);
    await page.getByTestId("login").click();
    await page.getByTestId("app-list").waitFor();
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
  });

  it("autosaves an edit that leaves the workflow invalid; a reload shows the draft with its error at the app's URL", async () => {
    await openByName("drafted");
    expect(new URL(page.url()).pathname).toBe(`/apps/${wrapId}`);
    await setTemplate("<{{ q }}>");
    await saved();
    expect(node((await serverDraft(wrapId)).workflow, "wrap").config.template).toBe("<{{ q }}>");

    await setTemplate("<{{ q ");
    await expect.poll(() => page.getByTestId("diag-count").textContent()).toMatch(/^1 error/);
    await saved();
    const d = await serverDraft(wrapId);
    expect(node(d.workflow, "wrap").config.template).toBe("<{{ q ");
    expect(d.diagnostics.map((x: any) => x.code)).toContain("jinja.syntax");

    await page.reload();
    await page.locator('.flow-wrap[data-view="ready"]').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/apps/${wrapId}`);
    await expect.poll(() => page.getByTestId("diag-count").textContent()).toMatch(/^1 error/);
    await page.locator('[data-node-id="wrap"] [data-testid="diag-badge"]').waitFor();
    await page.locator('[data-node-id="wrap"]').click();
    expect(await page.locator('[data-testid="template-editor"] .cm-content').textContent()).toBe("<{{ q ");
    // Published is still version 1: the draft's error is nowhere live.
    expect((await json(`/api/apps/${wrapId}`)).body.app.publishedVersion).toBe(1);
  });

  it("“← Apps” right after an edit saves it first; coming back shows it", async () => {
    await page.locator('[data-node-id="wrap"]').click();
    await page.getByTestId("field-title").fill("Wrap it");
    // No wait for the autosave: leaving flushes it.
    await page.getByTestId("back-to-apps").click();
    await page.getByTestId("app-list").waitFor();
    expect(new URL(page.url()).pathname).toBe("/");
    expect(node((await serverDraft(wrapId)).workflow, "wrap").title).toBe("Wrap it");
    await openByName("drafted");
    await expect.poll(() => page.locator('[data-node-id="wrap"]').textContent()).toContain("Wrap it");
    await expect.poll(() => page.getByTestId("diag-count").textContent()).toMatch(/^1 error/);
  });

  it("a reload right after an edit keeps it: what is unsaved is sent as the page goes", async () => {
    await page.locator('[data-node-id="wrap"]').click();
    await page.getByTestId("field-title").fill("Wrap again");
    // No wait for the autosave's delay: the reload starts at once.
    await page.reload();
    await page.locator('.flow-wrap[data-view="ready"]').waitFor();
    await expect.poll(async () => node((await serverDraft(wrapId)).workflow, "wrap").title).toBe("Wrap again");
    await expect.poll(() => page.locator('[data-node-id="wrap"]').textContent()).toContain("Wrap again");
  });

  it("a stale save is refused and shown as a conflict; loading the current draft shows the other editor's work", async () => {
    const d = await serverDraft(wrapId);
    const theirs = structuredClone(d.workflow);
    node(theirs, "wrap").title = "Wrap (theirs)";
    const put = await json(`/api/apps/${wrapId}/draft`, {
      method: "PUT",
      json: { workflow: theirs, revision: d.revision },
    });
    expect(put.status).toBe(200);
    // This editor still holds revision d.revision: its next save is stale.
    await page.locator('[data-node-id="wrap"]').click();
    await page.getByTestId("field-title").fill("Wrap (mine)");
    await page.getByTestId("draft-conflict").waitFor();
    expect(await page.getByTestId("save-status").textContent()).toContain("Not saved");
    expect(node((await serverDraft(wrapId)).workflow, "wrap").title).toBe("Wrap (theirs)");
    await shot("drafts-conflict");
    // Leaving now would lose the edit: the studio asks, and staying keeps it.
    const asked = new Promise<string>((res) =>
      page.once("dialog", (d) => {
        res(d.message());
        void d.dismiss();
      }),
    );
    await page.getByTestId("back-to-apps").click();
    expect(await asked).toContain("not saved");
    expect(await page.getByTestId("editor").count()).toBe(1);
    await page.getByTestId("conflict-load").click();
    await saved();
    expect(await page.getByTestId("draft-conflict").count()).toBe(0);
    await expect.poll(() => page.locator('[data-node-id="wrap"]').textContent()).toContain("Wrap (theirs)");

    // Once more, and this time the user keeps their own edit, said explicitly.
    const again = await serverDraft(wrapId);
    node(again.workflow, "wrap").title = "Wrap (theirs, 2)";
    expect(
      (
        await json(`/api/apps/${wrapId}/draft`, {
          method: "PUT",
          json: { workflow: again.workflow, revision: again.revision },
        })
      ).status,
    ).toBe(200);
    await page.locator('[data-node-id="wrap"]').click();
    await page.getByTestId("field-title").fill("Wrap (mine, kept)");
    await page.getByTestId("draft-conflict").waitFor();
    await page.getByTestId("conflict-keep").click();
    await saved();
    expect(node((await serverDraft(wrapId)).workflow, "wrap").title).toBe("Wrap (mine, kept)");
  });

  it("refuses to publish while invalid; once fixed it publishes, and /v1 runs the published version while the draft differs", async () => {
    await page.getByTestId("publish").click();
    const refused = page.getByTestId("publish-refused");
    await refused.waitFor();
    expect(await refused.textContent()).toContain("publish.invalid");
    await shot("drafts-publish-refused");
    expect(await page.getByTestId("publish-diagnostic").first().textContent()).toContain("Jinja2 syntax error");
    expect((await json(`/api/apps/${wrapId}`)).body.app.publishedVersion).toBe(1);

    await setTemplate("<{{ q }}>");
    await expect.poll(() => page.getByTestId("diag-count").textContent()).toMatch(/^0 error/);
    await page.getByTestId("publish").click();
    await page.getByText("Published version 2.").waitFor();
    await expect.poll(() => page.getByTestId("publish-state").getAttribute("data-published")).toBe("2");
    expect(await refused.count()).toBe(0);
    await page.getByTestId("tab-versions").click();
    await page.getByTestId("version-2").getByTestId("version-published").waitFor();

    // A later draft edit: the studio's Run runs it, /v1 keeps running what was published.
    await setTemplate("({{ q }})");
    await saved();
    await expect.poll(() => page.getByTestId("publish-state").textContent()).toContain("draft has changes");
    const client = new CompletionClient(appKey, `${s.url}/v1`) as WorkflowClient;
    const live = await client.runWorkflow({ q: "hi" }, "alice");
    expect(live.data.data).toMatchObject({ status: "succeeded", outputs: { out: "<hi>" } });

    await page.getByTestId("tab-run").click();
    await page.getByTestId("input-q").fill("hi");
    await page.getByTestId("run-button").click();
    await page.locator('[data-testid="run-result"][data-status="succeeded"]').waitFor();
    expect(await page.getByTestId("run-outputs").textContent()).toContain("(hi)");
    // The run is in the address bar: a reload comes back to it.
    expect(new URL(page.url()).pathname).toMatch(new RegExp(`^/apps/${wrapId}/runs/[^/]+$`));
  });

  it("finds a paused run in the Logs view, reloads on its deep link and answers its form there; the run completes", async () => {
    const id = await create("approval", approvalApp);
    const started = await json(`/api/apps/${id}/runs`, { method: "POST", json: { inputs: { item: "12 chairs" } } });
    expect(started.status).toBe(202);
    const runId = started.body.runId as string;
    await expect.poll(async () => (await json(`/api/runs/${runId}`)).body.status, { timeout: 15_000 }).toBe("paused");
    // A run answered already, beside it, for the filters to leave out.
    const other = await json(`/api/apps/${id}/runs`, { method: "POST", json: { inputs: { item: "a lamp" } } });
    await expect
      .poll(async () => (await json(`/api/runs/${other.body.runId}`)).body.status, { timeout: 15_000 })
      .toBe("paused");
    const otherForm = (await json(`/api/runs/${other.body.runId}/forms`)).body.forms[0];
    const answered = await json(`/api/runs/${other.body.runId}/forms/${otherForm.id}`, {
      method: "POST",
      json: { action: "reject", inputs: { reason: "no room" } },
    });
    expect(answered.status).toBe(200);
    await expect
      .poll(async () => (await json(`/api/runs/${other.body.runId}`)).body.status, { timeout: 15_000 })
      .toBe("succeeded");

    await page.getByTestId("back-to-apps").click();
    await page.reload();
    await openByName("approval");
    await page.getByTestId("tab-logs").click();
    await expect.poll(() => page.getByTestId("log-row").count()).toBe(2);
    // Both were started through the API, none from the studio.
    await page.getByTestId("log-source").selectOption("studio");
    await expect.poll(() => page.getByTestId("log-row").count()).toBe(0);
    await page.getByTestId("log-source").selectOption("api");
    await expect.poll(() => page.getByTestId("log-row").count()).toBe(2);
    await page.getByTestId("log-status").selectOption("paused");
    await expect.poll(() => page.getByTestId("log-row").count()).toBe(1);
    await shot("drafts-logs");
    await page.getByTestId("log-search").fill("chairs");
    await page.getByTestId("log-search").press("Enter");
    await expect.poll(() => page.locator(`[data-testid="log-row"][data-run-id="${runId}"]`).count()).toBe(1);
    await page.getByTestId("log-search").fill("no such text anywhere");
    await page.getByTestId("log-search").press("Enter");
    await expect.poll(() => page.getByTestId("log-row").count()).toBe(0);
    await page.getByTestId("log-search").fill("chairs");
    await page.getByTestId("log-search").press("Enter");
    await page.locator(`[data-testid="log-row"][data-run-id="${runId}"] [data-testid="log-open"]`).click();
    await expect.poll(() => new URL(page.url()).pathname).toBe(`/apps/${id}/runs/${runId}`);

    await page.reload();
    await page.locator('[data-testid="run-result"][data-status="paused"]').waitFor();
    const form = page.getByTestId("human-input-form");
    await form.waitFor();
    expect(await page.getByTestId("human-input-content").textContent()).toBe("Approve 12 chairs?\nReason: [reason]");
    await page.getByTestId("form-input-reason").fill("within budget");
    await shot("drafts-paused-run-deep-link");
    await page.getByTestId("form-action-approve").click();
    await page.locator('[data-testid="run-result"][data-status="succeeded"]').waitFor();
    expect(await page.getByTestId("run-outputs").textContent()).toContain("approved: within budget");
    expect((await json(`/api/runs/${runId}`)).body).toMatchObject({
      status: "succeeded",
      outputs: { decision: "approved: within budget" },
    });
  });

  it("pages the Logs view with More, newest first", async () => {
    // Two runs so far (the studio's and /v1's); 21 more through the API make 23, past one page of 20.
    const ids: string[] = [];
    for (let i = 0; i < 21; i++) {
      const r = await json(`/api/apps/${wrapId}/runs`, { method: "POST", json: { inputs: { q: `n${i}` } } });
      expect(r.status).toBe(202);
      ids.push(r.body.runId);
    }
    for (const id of ids)
      await expect.poll(async () => (await json(`/api/runs/${id}`)).body.status, { timeout: 15_000 }).toBe("succeeded");
    await page.goto(`${s.url}/apps/${wrapId}`);
    await page.getByTestId("editor").waitFor();
    await page.getByTestId("tab-logs").click();
    await expect.poll(() => page.getByTestId("log-row").count()).toBe(20);
    await page.getByTestId("log-more").click();
    await expect.poll(() => page.getByTestId("log-row").count()).toBe(23);
    expect(await page.getByTestId("log-more").count()).toBe(0);
    const shown = await page
      .getByTestId("log-row")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-run-id")));
    expect(new Set(shown).size).toBe(23);
    expect(shown[0]).toBe(ids.at(-1));
    await page.getByTestId("log-source").selectOption("v1");
    await expect.poll(() => page.getByTestId("log-row").count()).toBe(1);
  });

  it("sets environment variables and a write-only secret in the Env panel", async (ctx) => {
    const probe = await json(`/api/apps/${wrapId}/env`);
    if (probe.status === 404 && probe.body.error?.code === "route.not_found")
      ctx.skip(
        `this server has no GET /api/apps/:id/env yet (the secrets helper's API is not merged): ${probe.body.error.message}`,
      );
    await page.goto(`${s.url}/apps/${wrapId}`);
    await page.getByTestId("editor").waitFor();
    await page.getByTestId("tab-env").click();
    await page.getByTestId("env-panel").waitFor();
    await page.getByTestId("env-new-name").fill("GREETING");
    await page.getByTestId("env-new-value").fill("hello");
    await page.getByTestId("env-add").click();
    await page.getByTestId("env-row-GREETING").waitFor();
    await page.getByTestId("env-new-name").fill("API_TOKEN");
    await page.getByTestId("env-new-type").selectOption("secret");
    await page.getByTestId("env-new-value").fill("s3cr3t-value");
    await page.getByTestId("env-add").click();
    await expect.poll(() => page.getByTestId("env-set-API_TOKEN").textContent()).toContain("set");
    expect(await page.getByTestId("env-value-API_TOKEN").inputValue()).toBe("");
    const listed = (await json(`/api/apps/${wrapId}/env`)).body.variables;
    expect(listed).toEqual(
      expect.arrayContaining([
        { name: "GREETING", type: "string", value: "hello", set: true },
        { name: "API_TOKEN", type: "secret", value: null, set: true },
      ]),
    );
    expect(JSON.stringify(listed)).not.toContain("s3cr3t-value");
    await page.getByTestId("env-delete-GREETING").click();
    await page.getByTestId("env-row-GREETING").waitFor({ state: "detached" });
  });

  it("a link to an unknown app or run says so and leaves the user somewhere usable", async () => {
    await page.goto(`${s.url}/apps/01NOSUCHAPP0000000000000000`);
    await page.getByTestId("app-list").waitFor();
    expect(await page.getByTestId("notice").textContent()).toContain("app.not_found");
    expect(new URL(page.url()).pathname).toBe("/");

    await page.goto(`${s.url}/apps/${wrapId}/runs/01NOSUCHRUN0000000000000000`);
    await page.locator('[data-testid="run-result"][data-status="failed"]').waitFor();
    expect(await page.getByTestId("run-error").textContent()).toContain("run.not_found");
    expect(await page.getByTestId("editor").count()).toBe(1);
  });

  it("“Undo last AI change” stays enabled after an autosave that changes nothing, and undoes", async () => {
    // Every node placed: the studio places unplaced nodes on opening and saves that, a real change after which
    // Undo is rightly refused; this test is about a save that changes nothing.
    const placed = structuredClone(wrapApp);
    placed.nodes.forEach((n, i) => {
      n.canvas = { ...(n.canvas ?? {}), position: { x: 40 + 320 * i, y: 80 } };
    });
    const id = await create("undo after a no-op save", placed);
    const d0 = await serverDraft(id);
    const proposed = structuredClone(d0.workflow);
    node(proposed, "wrap").config.template = "AI {{ q }}";
    const p = await json(`/api/apps/${id}/proposals`, { method: "POST", json: { workflow: proposed } });
    expect(p.status).toBe(201);
    const applied = await json(`/api/apps/${id}/proposals/${p.body.id}/apply`, { method: "POST" });
    expect(applied.status).toBe(200);
    const rev = applied.body.draft.revision as number;

    await page.getByTestId("back-to-apps").click();
    await openByName("undo after a no-op save");
    // An edit and its reversal inside one autosave delay: the save changes nothing but makes a new revision.
    await page.locator('[data-node-id="wrap"]').click();
    await page.getByTestId("field-title").fill("Wrap x");
    await page.getByTestId("field-title").fill("Wrap");
    await expect.poll(async () => (await serverDraft(id)).revision).toBe(rev + 1);
    await saved();
    expect((await serverDraft(id)).workflow).toEqual(applied.body.draft.workflow);

    await page.getByTestId("tab-versions").click();
    const undo = page.getByTestId("undo");
    await undo.waitFor();
    await expect.poll(() => undo.isEnabled()).toBe(true);
    await undo.click();
    await page.getByText(/Undone: the draft is back to how it was before/).waitFor();
    expect(node((await serverDraft(id)).workflow, "wrap").config.template).toBe("[{{ q }}]");
  });

  it("raised no page errors", () => {
    expect(pageErrors).toEqual([]);
  });
});
