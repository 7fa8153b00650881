/**
 * The model picker in real Chromium (issue 29 item 6): in an app whose start node is `begin` (first variable
 * `topic`), an LLM node added from the palette after the start node gets the configured default model and a prompt
 * reading begin.topic, so the app shows 0 errors; its model field is a select of the configured models, with
 * "other…" for a model the configuration does not name (a warning then).
 */
import { existsSync, mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLlmConfig } from "../../src/llm/index.js";
import { buildWorkflow } from "../support/build.js";
import { CHROMIUM, CHROMIUM_ARGS } from "../support/web-build.js";
import { startTestServer, type TestServer } from "./helpers.js";

const OUT = resolve(import.meta.dirname, "../../test-output");
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`model picker e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

const beginApp = buildWorkflow({
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

describe.skipIf(!hasChromium)("model picker in a real browser", () => {
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  let id: string;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    s = await startTestServer({
      llmConfig: parseLlmConfig({
        endpoints: {
          local: { provider: "openai-compatible", baseURL: "http://127.0.0.1:9/v1", model: "house-model" },
          big: { provider: "openai", apiKey: "sk-test", defaultModel: "gpt-4.1" },
        },
        default: "local",
      }),
    });
    const res = await s.api("/api/apps", {
      method: "POST",
      json: { name: "begin app", mode: "workflow", workflow: beginApp },
    });
    expect(res.status).toBe(201);
    id = ((await res.json()) as any).app.id;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
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

  it("an LLM node added after `begin` starts valid with the configured default model, offered in a select", {
    timeout: 90_000,
  }, async () => {
    await page.getByTestId("app-list").waitFor();
    await page.getByRole("link", { name: "begin app", exact: true }).click();
    await page.locator('.flow-wrap[data-view="ready"]').waitFor();
    await page.locator('[data-node-id="begin"]').click();
    await page.getByTestId("palette-open").click();
    await page.getByTestId("palette-item-llm").click();
    await page.locator('.wf-node[data-node-type="llm"]').waitFor();

    // The configured models, the default selected; "other…" for anything else.
    const select = page.getByTestId("model-select");
    await expect
      .poll(() => select.locator("option").allTextContents())
      .toEqual(["house-model (local)", "gpt-4.1 (big)", "other…"]);
    expect(await select.locator("option:checked").textContent()).toBe("house-model (local)");
    await expect.poll(() => page.getByTestId("diag-count").textContent()).toMatch(/^0 error\(s\)/);
    const warningsBefore = Number(/(\d+) warning/.exec((await page.getByTestId("diag-count").textContent())!)![1]);
    await page.screenshot({ path: join(OUT, "model-picker.png") });

    // The server draft holds it: begin.topic in the prompt, the configured model.
    await page.locator('[data-testid="save-status"][data-state="saved"]').waitFor();
    const draft = (await (await s.api(`/api/apps/${id}/draft`)).json()) as any;
    const llm = draft.workflow.nodes.find((n: any) => n.type === "llm");
    expect(llm.config.model).toMatchObject({ name: "house-model" });
    expect(JSON.stringify(llm.config.prompt_template)).toContain("{{#begin.topic#}}");
    expect(draft.diagnostics.filter((d: any) => d.severity === "error")).toEqual([]);
    expect(draft.diagnostics.filter((d: any) => d.code === "model.not_configured")).toEqual([]);

    // Another configured model, then one the configuration does not name: a warning on the node.
    await select.selectOption({ label: "gpt-4.1 (big)" });
    await select.selectOption({ label: "other…" });
    await page.getByTestId("model-name").fill("my-own-model");
    await expect
      .poll(() => page.getByTestId("diag-count").textContent())
      .toBe(`0 error(s), ${warningsBefore + 1} warning(s)`);
    expect(pageErrors).toEqual([]);
  });
});
