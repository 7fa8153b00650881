import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLlmConfig } from "../../src/llm/index.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { corpusFile, startTestServer, type TestServer } from "./helpers.js";

const CHROMIUM = "/usr/bin/chromium";
const ROOT = resolve(import.meta.dirname, "../..");
const WEB = join(ROOT, "web");
const OUT = join(ROOT, "test-output");
const IF_ELSE = corpusFile(
  "Akabane71__dify-workflow-cli/tests/fixtures/workflow/conditional_hello_branching_workflow.yml",
);
const LOOP = corpusFile(
  "langgenius__dify/api/tests/fixtures/workflow/increment_loop_with_break_condition_workflow.yml",
);
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`browser e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

function newestMtime(p: string): number {
  const st = statSync(p);
  if (!st.isDirectory()) return st.mtimeMs;
  return Math.max(st.mtimeMs, ...readdirSync(p).map((f) => newestMtime(join(p, f))));
}

/** Build the UI when web/dist is missing or older than its sources. */
function ensureBuilt(): void {
  const built = join(WEB, "dist", "index.html");
  const sources = Math.max(
    newestMtime(join(WEB, "src")),
    newestMtime(join(WEB, "index.html")),
    newestMtime(join(WEB, "vite.config.ts")),
  );
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  execFileSync(
    process.execPath,
    [join(ROOT, "node_modules/vite/bin/vite.js"), "build", "--config", join(WEB, "vite.config.ts")],
    { cwd: ROOT, stdio: "pipe" },
  );
}

const compact = {
  nodes_info: [
    { id: "1", type: "start", param: { variables: [["query", "string"]] } },
    { id: "2", type: "template-transform", param: { variables: [["q", ["query", "1"]]], template: "[{{ q }}]" } },
    { id: "3", type: "end", param: { outputs: [["wrapped", ["output", "2"]]] } },
  ],
  edges: [
    ["1", 0, "2"],
    ["2", 0, "3"],
  ],
};

describe.skipIf(!hasChromium)("web UI in a real browser", () => {
  let llm: ReplayServer;
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  const pageErrors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(OUT, `${name}.png`) });

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    ensureBuilt();
    llm = await startReplayServer();
    s = await startTestServer({
      services: { sandbox: createSandbox() },
      llmConfig: parseLlmConfig({
        endpoints: { ep: { provider: "openai-compatible", baseURL: llm.openaiBaseURL, model: "replay" } },
        default: "ep",
        retry: { maxRetries: 0 },
      }),
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 860 } });
    page.setDefaultTimeout(15_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await llm?.close();
  });

  it("refuses a wrong key, then signs in", async () => {
    await page.goto(s.url);
    await page.getByTestId("api-key").fill("weft_wrong");
    await page.getByTestId("login").click();
    await page.getByText("auth.invalid_key").waitFor();
    await page.getByTestId("api-key").fill(s.key);
    await page.getByTestId("login").click();
    await page.getByTestId("app-list").waitFor();
  });

  it("imports a Dify YAML and shows its nodes and edges on the canvas", async () => {
    await page.getByTestId("import-new").setInputFiles(IF_ELSE);
    await page.getByTestId("editor").waitFor();
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(4);
    for (const id of ["start_node", "ifelse_node", "end_true", "end_false"])
      await page.locator(`[data-node-id="${id}"]`).waitFor();
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(3);
    expect(await page.getByTestId("app-name").textContent()).toBe("if-else");
    // The if-else card has its IF and ELSE ports.
    expect(await page.locator('[data-node-id="ifelse_node"] .wf-port').allTextContents()).toEqual(["IF", "ELSE"]);
    await shot("01-imported");
  });

  it("shows analyser diagnostics on a node while editing, and clears them", async () => {
    await page.locator('[data-node-id="end_true"]').click();
    const outputs = page.getByTestId("field-outputs");
    const original = await outputs.inputValue();
    await outputs.fill(original.replace('"query"', '"nope"'));
    await page.locator('[data-node-id="end_true"] [data-testid="diag-badge"]').waitFor();
    expect(await page.getByTestId("diag-count").textContent()).toMatch(/^[1-9]\d* error/);
    await shot("02-diagnostic");
    await page.getByTestId("save").click();
    await page.getByText(/not saved/).waitFor();
    await outputs.fill(original);
    await page.locator('[data-node-id="end_true"] [data-testid="diag-badge"]').waitFor({ state: "detached" });
  });

  it("edits a node, saves a version and runs it with live node status and outputs", async () => {
    await page.locator('[data-node-id="ifelse_node"]').click();
    const cases = page.getByTestId("field-cases");
    await cases.fill((await cases.inputValue()).replace('"hello"', '"bye"'));
    await page.getByTestId("save").click();
    await page.getByText("saved version 2").waitFor();
    const v2 = (await (
      await s.api(`/api/apps/${((await s.api("/api/apps").then((r) => r.json())) as any).apps[0].id}/workflow`)
    ).json()) as any;
    expect(JSON.stringify(v2.workflow.nodes.find((n: any) => n.id === "ifelse_node").config.cases)).toContain('"bye"');

    await page.getByTestId("tab-run").click();
    await page.getByTestId("input-query").fill("bye bye");
    await page.getByTestId("run-button").click();
    await page.locator('[data-testid="run-result"][data-status="succeeded"]').waitFor();
    const outputs = await page.getByTestId("run-outputs").textContent();
    expect(outputs).toContain("true");
    expect(outputs).toContain("bye bye");
    await page.locator('[data-node-id="end_true"][data-status="succeeded"]').waitFor();
    await page.locator('[data-node-id="end_false"][data-status="skipped"]').waitFor();
    const events = await page.getByTestId("run-events").locator("li").allTextContents();
    expect(events[0]).toBe("run_started");
    expect(events.at(-1)).toMatch(/^run_finished/);
    // Per-node trace appears after the run.
    await page.locator('[data-testid="trace-ifelse_node"]').waitFor();
    await shot("03-run");
  });

  it("exports Dify YAML", async () => {
    const [dl] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export").click()]);
    expect(dl.suggestedFilename()).toMatch(/\.yml$/);
  });

  it("chats with the agent and sees the canvas change to the new version", { timeout: 90_000 }, async () => {
    llm.enqueue(
      reply.toolCall("update_workflow", { workflow: compact }),
      reply.text("Done: the query is now wrapped in brackets."),
    );
    await page.getByTestId("tab-chat").click();
    await page.getByTestId("models").getByText("Agent model: ep (openai-compatible, replay)").waitFor();
    await page.getByTestId("chat-input").fill("wrap the query in brackets");
    await page.getByTestId("chat-send").click();
    await page
      .getByText("Done: the query is now wrapped in brackets.")
      .waitFor()
      .catch(async (e) => {
        await shot("04-agent-failed");
        throw new Error(
          `${e.message}\nunmatched LLM requests: ${llm.unmatched.length}\npage errors: ${pageErrors.join("\n")}`,
        );
      });
    await page.locator('[data-node-type="template-transform"]').waitFor();
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(3);
    expect(await page.locator('[data-node-id="ifelse_node"]').count()).toBe(0);
    await shot("04-agent");

    await page.getByTestId("tab-versions").click();
    await page.getByTestId("version-3").waitFor();
    await page.getByTestId("version-3").getByText("diff").click();
    const diff = await page.getByTestId("diff").textContent();
    expect(diff).toContain("+ nodes");
    expect(diff).toContain("− nodes");
    await shot("05-versions");

    // The new version runs.
    await page.getByTestId("tab-run").click();
    await page.getByTestId("input-query").fill("hi");
    await page.getByTestId("run-button").click();
    await page.locator('[data-testid="run-result"][data-status="succeeded"]').waitFor();
    expect(await page.getByTestId("run-outputs").textContent()).toContain("[hi]");
  });

  it("draws loop containers with their body inside", async () => {
    await page.getByText("← Apps").click();
    await page.getByTestId("import-new").setInputFiles(LOOP);
    await page.getByTestId("editor").waitFor();
    const loop = page.locator('[data-node-type="loop"]');
    await loop.waitFor();
    await page.locator('[data-node-type="assigner"]').waitFor();
    const outer = (await loop.boundingBox())!;
    const inner = (await page.locator('[data-node-type="assigner"]').boundingBox())!;
    expect(inner.x).toBeGreaterThanOrEqual(outer.x);
    expect(inner.y).toBeGreaterThanOrEqual(outer.y);
    expect(inner.x + inner.width).toBeLessThanOrEqual(outer.x + outer.width + 1);
    expect(inner.y + inner.height).toBeLessThanOrEqual(outer.y + outer.height + 1);
    await shot("06-loop");
    await page.getByTestId("tab-run").click();
    await page.getByTestId("run-button").click();
    await page.locator('[data-testid="run-result"][data-status="succeeded"]').waitFor();
    expect(await page.getByTestId("run-outputs").textContent()).toContain("5");
  });
});
