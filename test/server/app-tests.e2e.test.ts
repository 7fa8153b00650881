/**
 * The studio's Tests tab in real Chromium (issue 34), on a corpus app (SEO Slug Generator) with a replay model
 * that answers each request with a digest of its messages (same prompt, same answer): a run of the draft
 * becomes a test case in one click; the case is edited (renamed, a check added), a case made from scratch is
 * deleted; the cases run k=2 times and pass. A proposal that changes the LLM prompt shows its failing case in
 * the review bar before Apply; applied anyway, the Tests tab shows the case failing at node 'LLM' with
 * expected and got and a link to the run's trace; with the gate on, Publish is refused naming the case.
 * Screenshots in test-output/.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLlmService, parseLlmConfig } from "../../src/llm/index.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { DirFileService } from "../../src/tools/files.js";
import { type RecordedRequest, type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { CHROMIUM, CHROMIUM_ARGS } from "../support/web-build.js";
import { corpusFile, startTestServer, type TestServer } from "./helpers.js";

const OUT = resolve(import.meta.dirname, "../../test-output");
const APP = corpusFile("svcvit__Awesome-Dify-Workflow/DSL/SEO Slug Generator.yml");
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`app tests e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

const digest = (r: RecordedRequest) =>
  createHash("sha256")
    .update(JSON.stringify(r.body?.messages ?? []))
    .digest("hex")
    .slice(0, 12);

describe.skipIf(!hasChromium)("the Tests tab in a real browser (issue 34)", () => {
  let llm: ReplayServer;
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  let appId = "";
  let filesDir = "";
  const pageErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    filesDir = mkdtempSync(join(tmpdir(), "weft-tests-e2e-files-"));
    llm = await startReplayServer();
    llm.when(
      (r) => r.api === "openai-chat",
      (r) => reply.text(`answer ${digest(r)}`),
      { times: Number.POSITIVE_INFINITY },
    );
    const llmConfig = parseLlmConfig({
      endpoints: { replay: { provider: "openai-compatible", baseURL: llm.openaiBaseURL } },
      default: "replay",
      retry: { maxRetries: 0 },
    });
    s = await startTestServer({
      llmConfig,
      services: { llm: createLlmService(llmConfig), sandbox: createSandbox(), files: new DirFileService(filesDir) },
    });
    const imported = await s.api("/api/apps/import", { method: "POST", body: readFileSync(APP, "utf8") });
    expect(imported.status).toBe(201);
    appId = ((await imported.json()) as any).app.id;
    browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
    page = await browser.newPage({ viewport: { width: 1500, height: 900 } });
    page.setDefaultTimeout(30_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
    page.on("dialog", (d) => void d.accept());
    await page.goto(s.url);
    await page.getByTestId("api-key").fill(s.key);
    await page.getByTestId("login").click();
    await page.getByTestId("app-list").waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await llm?.close();
    if (filesDir) rmSync(filesDir, { recursive: true, force: true });
  });

  const openApp = async () => {
    await page.goto(`${s.url}/apps/${appId}`);
    await page.locator('.flow-wrap[data-view="ready"]').waitFor();
  };
  const caseNamed = (name: string) => page.locator(`[data-testid="test-case"][data-case="${name}"]`);

  it("a run becomes a case in one click; cases are edited, made from scratch, deleted, and run k times", {
    timeout: 120_000,
  }, async () => {
    await openApp();
    await page.getByTestId("tab-run").click();
    await page.getByTestId("input-title").fill("How to bake sourdough bread at home");
    await page.getByTestId("run-button").click();
    await page.locator('[data-testid="run-result"][data-status="succeeded"]').waitFor();
    await page.getByTestId("save-as-test-button").click();
    await page.locator('[data-testid="save-as-test"][data-state="done"]').waitFor();

    await page.getByTestId("tab-tests").click();
    await expect.poll(() => page.getByTestId("test-case").count()).toBe(1);
    const checks = await page.getByTestId("test-case-checks").textContent();
    expect(checks).toMatch(/^output = "answer [0-9a-f]{12}"$/);
    // Rename it and add a looser check beside the exact one.
    await page.getByTestId("test-case-edit").click();
    await page.getByTestId("case-name").fill("slug");
    await page.getByTestId("check-add").click();
    const added = page.getByTestId("check-row").nth(1);
    await added.getByTestId("check-output").fill("output");
    await added.getByTestId("check-text").fill("answer ");
    await page.getByTestId("case-save").click();
    await caseNamed("slug").waitFor();
    expect(await caseNamed("slug").getByTestId("test-case-checks").locator("li").allTextContents()).toEqual([
      checks,
      'output contains "answer "',
    ]);

    // A case from scratch: a bad inputs box is said, not guessed; then it is saved and deleted.
    await page.getByTestId("test-case-new").click();
    await page.getByTestId("case-name").fill("scratch");
    await page.getByTestId("case-inputs").fill("{title: x}");
    await page.getByTestId("check-output").fill("output");
    await page.getByTestId("check-text").fill("answer");
    await page.getByTestId("case-save").click();
    await expect.poll(() => page.getByTestId("case-error").textContent()).toMatch(/^inputs are not JSON/);
    await page.getByTestId("case-inputs").fill('{"title": "x"}');
    await page.getByTestId("case-save").click();
    await caseNamed("scratch").waitFor();
    await caseNamed("scratch").getByTestId("test-case-delete").click();
    await expect.poll(() => page.getByTestId("test-case").count()).toBe(1);

    await page.getByTestId("test-k").fill("2");
    await page.getByTestId("test-run-button").click();
    const report = page.getByTestId("test-report");
    await report.waitFor();
    expect(await report.getAttribute("data-passed")).toBe("1");
    expect(await page.getByTestId("test-summary").textContent()).toMatch(
      /^1\/1 case\(s\) pass on the draft \(revision \d+\) · pass\^2 = 1\.000 \(2 runs each\)/,
    );
    expect(await page.locator('[data-testid="test-result"][data-case="slug"]').getAttribute("data-pass")).toBe("true");
    await page.screenshot({ path: join(OUT, "app-tests-tab-pass.png") });
    expect(pageErrors).toEqual([]);
  });

  it("a breaking proposal shows the failing case before Apply; applied, the tab shows the failure and Publish is refused", {
    timeout: 120_000,
  }, async () => {
    const draft = (await (await s.api(`/api/apps/${appId}/draft`)).json()) as any;
    const wf = structuredClone(draft.workflow);
    const node = wf.nodes.find((n: any) => n.type === "llm");
    node.config.prompt_template.at(-1).text += "\nAnswer in exactly three words.";
    const p = await s.api(`/api/apps/${appId}/proposals`, {
      method: "POST",
      json: { workflow: wf, instruction: "three-word slugs" },
    });
    expect(p.status).toBe(201);

    // The studio shows the pending proposal with its proof, before anything is applied.
    await openApp();
    const tests = page.getByTestId("proposal-tests");
    await tests.waitFor();
    expect(await tests.getAttribute("data-failed")).toBe("1");
    expect(await tests.locator("p").textContent()).toBe("tests: 0/1 pass (was 1/1)");
    const failure = page.getByTestId("proposal-test-failure");
    expect(await failure.getAttribute("data-case")).toBe("slug");
    expect(await failure.textContent()).toMatch(
      /^case 'slug' fails at node 'LLM': output: expected "answer [0-9a-f]{12}", got "answer [0-9a-f]{12}" the failing run's trace$/,
    );
    await page.getByTestId("proposal-test-failure").getByTestId("test-trace-link").waitFor();
    expect(await page.getByTestId("proposal-apply").isEnabled()).toBe(true);
    await page.screenshot({ path: join(OUT, "app-tests-proposal-failing-case.png") });

    // The publish gate, set in the tab; then the user applies the proposal anyway.
    await page.getByTestId("tab-tests").click();
    await page.getByTestId("gate-require").check();
    await expect.poll(() => page.getByTestId("gate-message").textContent()).toBe("Publish now needs pass^1 ≥ 1.");
    await page.getByTestId("proposal-apply").click();
    await expect.poll(() => page.getByTestId("review-bar").count()).toBe(0);

    await page.getByTestId("tab-tests").click();
    await page.getByTestId("test-run-button").click();
    const result = page.locator('[data-testid="test-result"][data-case="slug"]');
    await result.waitFor();
    expect(await result.getAttribute("data-pass")).toBe("false");
    expect(await result.getByTestId("test-failure-node").textContent()).toBe("LLM");
    const expected = await result.getByTestId("test-expected").textContent();
    const got = await result.getByTestId("test-got").textContent();
    expect(expected).toMatch(/^"answer [0-9a-f]{12}"$/);
    expect(got).toMatch(/^"answer [0-9a-f]{12}"$/);
    expect(got).not.toBe(expected);
    await page.screenshot({ path: join(OUT, "app-tests-tab-fail.png") });

    // The trace link opens the failing run in the Run panel, at its deep link.
    const runId = await result.getByTestId("test-trace-link").getAttribute("data-run-id");
    await result.getByTestId("test-trace-link").click();
    await page.locator('[data-testid="run-result"][data-status="succeeded"]').waitFor();
    expect(new URL(page.url()).pathname).toBe(`/apps/${appId}/runs/${runId}`);
    await page.getByTestId("run-tab-trace").click();
    await expect.poll(() => page.getByTestId("run-result").textContent()).toContain("Trace (3)");

    await page.getByTestId("publish").click();
    const refused = page.getByTestId("publish-refused");
    await refused.waitFor();
    expect(await refused.textContent()).toContain(
      "publish.tests_failed: publishing refused: 1 of 1 required test case(s) fail",
    );
    expect(await refused.textContent()).toContain("case 'slug' fails at node 'LLM'");
    await page.screenshot({ path: join(OUT, "app-tests-publish-refused.png") });
    const app = (await (await s.api(`/api/apps/${appId}`)).json()) as any;
    expect(app.app.publishedVersion).toBe(1);
    // The refusal box covers the side tabs until closed.
    await refused.getByRole("button", { name: "close" }).click();

    // Logs: test runs are the app's, source "tests"; "+ Test" on the studio's run makes a case in one click.
    await page.getByTestId("tab-logs").click();
    await page.getByTestId("log-source").selectOption("tests");
    await expect.poll(() => page.getByTestId("log-row").count()).toBeGreaterThanOrEqual(4);
    await page.getByTestId("log-source").selectOption("studio");
    await expect.poll(() => page.getByTestId("log-row").count()).toBe(1);
    await page.getByTestId("log-row").getByTestId("save-as-test-button").click();
    await page.locator('[data-testid="log-row"] [data-testid="save-as-test"][data-state="done"]').waitFor();
    await page.getByTestId("tab-tests").click();
    await expect.poll(() => page.getByTestId("test-case").count()).toBe(2);
    expect(pageErrors).toEqual([]);
  });
});
