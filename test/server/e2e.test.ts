import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse as parseYaml } from "yaml";
import { diffWorkflows } from "../../src/ir/diff.js";
import { createLlmService, parseLlmConfig } from "../../src/llm/index.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { DirFileService } from "../../src/tools/files.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { CHROMIUM } from "../support/web-build.js";
import { corpusFile, serveSample, startTestServer, type TestServer } from "./helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const OUT = join(ROOT, "test-output");
const IF_ELSE = corpusFile(
  "Akabane71__dify-workflow-cli/tests/fixtures/workflow/conditional_hello_branching_workflow.yml",
);
const LOOP = corpusFile(
  "langgenius__dify/api/tests/fixtures/workflow/increment_loop_with_break_condition_workflow.yml",
);
const ROUTING = corpusFile("A1sh-4__dify-dsl-generator/skills/dify/assets/workflows/conditional-routing.yml");
const BIG = corpusFile("svcvit__Awesome-Dify-Workflow/DSL/完蛋！我被LLM包围了！（战绩排行版）.yml");
const WORD_STATS = join(ROOT, "examples/word-stats.yml");
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`browser e2e skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`);

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

const chatCounter = {
  weft: 1,
  name: "turn counter",
  mode: "advanced-chat",
  conversation_variables: [{ name: "turns", value_type: "number", value: 0 }],
  nodes: [
    { id: "start", type: "start", title: "Start", config: { variables: [] } },
    {
      id: "count",
      type: "assigner",
      title: "Count turns",
      config: {
        version: "2",
        items: [{ variable_selector: ["conversation", "turns"], operation: "+=", input_type: "constant", value: 1 }],
      },
    },
    {
      id: "reply",
      type: "answer",
      title: "Reply",
      config: { answer: "turn {{#conversation.turns#}}: {{#sys.query#}}" },
    },
  ],
  edges: [
    { source: "start", target: "count" },
    { source: "count", target: "reply" },
  ],
};

// A chatflow answer in Markdown with a Dify form (and hostile bits that must stay inert); the next turn echoes.
const FORM_ANSWER = [
  "**Bold** and [docs](https://example.com/docs) and [bad](javascript:alert(1)) <img src=x onerror=alert(1)>",
  '<form data-format="json"><label for="name">Name</label><input type="text" name="name" value="Ada"/>',
  '<select name="size"><option value="s">s</option><option value="m">m</option></select>',
  '<input type="checkbox" name="agree"/><button data-variant="primary">Go</button></form>',
  "You said: {{#sys.query#}}",
].join("\n");
const formChat = {
  weft: 1,
  name: "form answer",
  mode: "advanced-chat",
  nodes: [
    { id: "start", type: "start", title: "Start", config: { variables: [] } },
    { id: "reply", type: "answer", title: "Reply", config: { answer: FORM_ANSWER } },
  ],
  edges: [{ source: "start", target: "reply" }],
};
const failingChat = {
  weft: 1,
  name: "failing chat",
  mode: "advanced-chat",
  nodes: [
    { id: "start", type: "start", title: "Start", config: { variables: [] } },
    {
      id: "fetch",
      type: "http-request",
      title: "Fetch metadata",
      config: { method: "get", url: "http://169.254.169.254/latest" },
    },
    { id: "reply", type: "answer", title: "Reply", config: { answer: "{{#fetch.body#}}" } },
  ],
  edges: [
    { source: "start", target: "fetch" },
    { source: "fetch", target: "reply" },
  ],
};

const fileEcho = {
  weft: 1,
  name: "file echo",
  mode: "workflow",
  nodes: [
    {
      id: "start",
      type: "start",
      title: "Start",
      config: { variables: [{ variable: "doc", label: "Document", type: "file", required: true }] },
    },
    {
      id: "name",
      type: "template-transform",
      title: "Name the file",
      config: { variables: [{ variable: "f", value_selector: ["start", "doc"] }], template: "got {{ f.filename }}" },
    },
    {
      id: "end",
      type: "end",
      title: "End",
      config: { outputs: [{ variable: "name", value_selector: ["name", "output"] }] },
    },
  ],
  edges: [
    { source: "start", target: "name" },
    { source: "name", target: "end" },
  ],
};

/** A tool and a knowledge base nothing here serves: both are warned about on their nodes before any run. */
const unserved = {
  weft: 1,
  name: "unserved",
  mode: "workflow",
  nodes: [
    {
      id: "start",
      type: "start",
      title: "Start",
      config: { variables: [{ variable: "q", label: "Q", type: "text-input", required: true }] },
    },
    {
      id: "search",
      type: "tool",
      title: "Web search",
      config: {
        provider_type: "builtin",
        provider_id: "tavily",
        tool_name: "tavily_search",
        tool_parameters: { query: { type: "mixed", value: "{{#start.q#}}" } },
      },
    },
    {
      id: "kr",
      type: "knowledge-retrieval",
      title: "Policies",
      config: { query_variable_selector: ["start", "q"], dataset_ids: ["policies-2024"], retrieval_mode: "multiple" },
    },
    {
      id: "end",
      type: "end",
      title: "End",
      config: {
        outputs: [
          { variable: "s", value_selector: ["search", "text"] },
          { variable: "k", value_selector: ["kr", "result"] },
        ],
      },
    },
  ],
  edges: [
    { source: "start", target: "search" },
    { source: "search", target: "kr" },
    { source: "kr", target: "end" },
  ],
};

/** Two placed nodes and one without a position; an if-else case without conditions (a warning today). */
const placed = {
  weft: 1,
  name: "placed",
  mode: "workflow",
  nodes: [
    {
      id: "start",
      type: "start",
      title: "Begin",
      config: { variables: [{ variable: "q", type: "text-input" }] },
      canvas: { position: { x: 0, y: 0 } },
    },
    {
      id: "check",
      type: "if-else",
      title: "Check",
      config: { cases: [{ case_id: "true", logical_operator: "and", conditions: [] }] },
      canvas: { position: { x: 400, y: 200 }, positionAbsolute: { x: 400, y: 200 } },
    },
    { id: "done", type: "end", title: "Done", config: { outputs: [] } },
  ],
  edges: [
    { source: "start", target: "check" },
    { source: "check", sourcePort: "true", target: "done" },
    { source: "check", sourcePort: "false", target: "done" },
  ],
};

/** The pre-cases if-else layout: one implicit case at the top level. */
const legacyIfElse = {
  weft: 1,
  name: "legacy if-else",
  mode: "workflow",
  nodes: [
    { id: "start", type: "start", title: "Start", config: { variables: [{ variable: "q", type: "text-input" }] } },
    {
      id: "gate",
      type: "if-else",
      title: "Gate",
      config: {
        logical_operator: "and",
        conditions: [{ variable_selector: ["start", "q"], comparison_operator: "contains", value: "yes" }],
      },
    },
    { id: "end", type: "end", title: "End", config: { outputs: [{ variable: "q", value_selector: ["start", "q"] }] } },
  ],
  edges: [
    { source: "start", target: "gate" },
    { source: "gate", sourcePort: "true", target: "end" },
    { source: "gate", sourcePort: "false", target: "end" },
  ],
};

/** The workflow whose proposals are reviewed: start → wrap → end, and a side branch to be removed. */
const reviewed = {
  weft: 1,
  name: "review me",
  mode: "workflow",
  nodes: [
    {
      id: "start",
      type: "start",
      title: "Start",
      config: { variables: [{ variable: "query", label: "Query", type: "text-input", required: true }] },
      canvas: { position: { x: 0, y: 100 } },
    },
    {
      id: "wrap",
      type: "template-transform",
      title: "Wrap",
      config: { variables: [{ variable: "q", value_selector: ["start", "query"] }], template: "[{{ q }}]" },
      canvas: { position: { x: 320, y: 40 } },
    },
    {
      id: "note",
      type: "template-transform",
      title: "Side note",
      config: { variables: [], template: "unused" },
      canvas: { position: { x: 320, y: 260 } },
    },
    {
      id: "end",
      type: "end",
      title: "End",
      config: { outputs: [{ variable: "wrapped", value_selector: ["wrap", "output"] }] },
      canvas: { position: { x: 640, y: 100 } },
    },
  ],
  edges: [
    { source: "start", target: "wrap" },
    { source: "wrap", target: "end" },
    { source: "start", target: "note" },
  ],
};
/**
 * The agent's edits of it, on the compact ids it is shown (1 start, 2 wrap, 3 note, 4 end): one field changed,
 * a node added and wired in, a node removed, the end rewired.
 */
const reviewEdits = [
  { op: "set_param", id: "2", field: "template", value: "<<{{ q }}>>" },
  {
    op: "add_node",
    node: {
      id: "5",
      type: "template-transform",
      title: "Shout",
      param: { variables: [["w", ["output", "2"]]], template: "{{ w }}!" },
    },
  },
  { op: "remove_node", id: "3" },
  { op: "remove_edge", edge: ["2", 0, "4"] },
  { op: "add_edge", edge: ["2", 0, "5"] },
  { op: "add_edge", edge: ["5", 0, "4"] },
  { op: "set_param", id: "4", field: "outputs", value: [["wrapped", ["output", "5"]]] },
];

describe.skipIf(!hasChromium)("web studio in a real browser", () => {
  let llm: ReplayServer;
  let s: TestServer;
  let browser: Browser;
  let page: Page;
  let scratch: string;
  const pageErrors: string[] = [];
  const shot = (name: string) => page.screenshot({ path: join(OUT, `${name}.png`) });

  const createApp = async (workflow: any): Promise<string> => {
    const res = await s.api("/api/apps", {
      method: "POST",
      json: { name: workflow.name, mode: workflow.mode, workflow },
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as any).app.id;
  };
  const toAppList = async () => {
    if (await page.getByTestId("editor").count()) await page.getByText("← Apps").click();
    await page.getByTestId("app-list").waitFor();
  };
  const openByName = async (name: string) => {
    await toAppList();
    await page.getByRole("link", { name, exact: true }).first().click();
    await page.getByTestId("editor").waitFor();
    await page.locator('.flow-wrap[data-view="ready"]').waitFor();
  };
  /** Import through the dialog, opening the app (past its report of warnings, if any). */
  const importFile = async (file: string) => {
    await toAppList();
    await page.getByTestId("import-new").click();
    await page.getByTestId("import-file").setInputFiles(file);
    await Promise.race([page.getByTestId("editor").waitFor(), page.getByTestId("import-open").waitFor()]);
    if (await page.getByTestId("import-open").count()) await page.getByTestId("import-open").click();
    await page.getByTestId("editor").waitFor();
    await page.locator('.flow-wrap[data-view="ready"]').waitFor();
  };
  const zoom = async () => Number((await page.getByTestId("zoom").textContent())!.replace("%", "")) / 100;
  const appId = async (name: string) =>
    ((await (await s.api("/api/apps")).json()) as any).apps.find((a: any) => a.name === name).id as string;
  const current = async (name: string) =>
    (await (await s.api(`/api/apps/${await appId(name)}/workflow`)).json()) as any;
  const serverDraft = async (name: string) =>
    (await (await s.api(`/api/apps/${await appId(name)}/draft`)).json()) as any;

  beforeAll(async () => {
    mkdirSync(OUT, { recursive: true });
    scratch = mkdtempSync(join(tmpdir(), "weft-e2e-"));
    llm = await startReplayServer();
    const llmConfig = parseLlmConfig({
      endpoints: { ep: { provider: "openai-compatible", baseURL: llm.openaiBaseURL, model: "replay" } },
      default: "ep",
      retry: { maxRetries: 0 },
    });
    s = await startTestServer({
      services: {
        sandbox: createSandbox(),
        llm: createLlmService(llmConfig),
        files: new DirFileService(join(scratch, "files")),
      },
      llmConfig,
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
    page.setDefaultTimeout(20_000);
    page.on("pageerror", (e) => pageErrors.push(e.message));
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await s?.stop();
    await llm?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
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

  it("a failed import shows its error in the dialog, and nothing of it reaches the next app", async () => {
    const bad = join(scratch, "broken.yml");
    writeFileSync(bad, "app:\n  mode: workflow\nworkflow: [unclosed\n");
    await page.getByTestId("import-new").click();
    await page.getByTestId("import-file").setInputFiles(bad);
    const error = page.getByTestId("import-error");
    await error.waitFor();
    expect(await error.textContent()).toMatch(/Import failed/);
    // The position is said once, and the lines it points at are shown from the file itself.
    expect((await error.textContent())!.match(/at line \d+, column \d+/g)).toHaveLength(1);
    expect(await page.getByTestId("import-excerpt").textContent()).toContain("3 | workflow: [unclosed");
    await shot("failed-import");
    await page.getByTestId("import-close").click();
    await page.getByTestId("import-dialog").waitFor({ state: "detached" });
    await importFile(IF_ELSE);
    expect(await page.getByTestId("app-name").textContent()).toBe("if-else");
    expect(await page.getByText(/import failed/i).count()).toBe(0);
    expect(await page.getByTestId("notice").count()).toBe(0);
  });

  it("import warnings are listed in the dialog that caused them", async () => {
    await toAppList();
    await page.getByTestId("import-new").click();
    await page.getByTestId("import-file").setInputFiles(LOOP);
    await page.getByTestId("import-report").waitFor();
    expect(await page.getByTestId("import-warning").first().textContent()).toContain("older than");
    await page.getByTestId("import-open").click();
    await page.getByTestId("editor").waitFor();
    expect(await page.getByTestId("import-dialog").count()).toBe(0);
  });

  it("draws loop containers with their body inside", async () => {
    const loop = page.locator('[data-node-type="loop"]');
    await loop.waitFor();
    await page.locator('[data-node-type="assigner"]').waitFor();
    const outer = (await loop.boundingBox())!;
    const inner = (await page.locator('[data-node-type="assigner"]').boundingBox())!;
    expect(inner.x).toBeGreaterThanOrEqual(outer.x);
    expect(inner.y).toBeGreaterThanOrEqual(outer.y);
    expect(inner.x + inner.width).toBeLessThanOrEqual(outer.x + outer.width + 1);
    expect(inner.y + inner.height).toBeLessThanOrEqual(outer.y + outer.height + 1);
    await page.getByTestId("tab-run").click();
    await page.getByTestId("run-button").click();
    await page.locator('[data-testid="run-result"][data-status="succeeded"]').waitFor();
    expect(await page.getByTestId("run-outputs").textContent()).toContain("5");
  });

  it("opens a 31-node corpus workflow whole: fitted, icons and large titles, summaries when zoomed in, a minimap with every node", async () => {
    await importFile(BIG);
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(31);
    // Fitted whole (canvas.e2e.test.ts checks every card is inside): far out, so cards show icon and title only.
    expect(await page.locator(".flow-wrap").getAttribute("data-detail")).not.toBe("near");
    for (let i = 0; i < 12 && (await zoom()) < 0.75; i++) await page.locator(".react-flow__controls-zoomin").click();
    const z = await zoom();
    expect(z).toBeGreaterThanOrEqual(0.75);
    const titleSize = await page
      .locator(".wf-title")
      .first()
      .evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize));
    const summarySize = await page
      .locator(".wf-summary")
      .first()
      .evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize));
    expect(titleSize * z).toBeGreaterThanOrEqual(10.5);
    expect(summarySize * z).toBeGreaterThanOrEqual(9);
    await page.locator(".react-flow__controls-fitview").click();
    // The flow starts at the left edge of the view.
    const start = (await page.locator('[data-node-type="start"]').boundingBox())!;
    const canvas = (await page.getByTestId("canvas").boundingBox())!;
    expect(start.x).toBeGreaterThanOrEqual(canvas.x);
    expect(start.x).toBeLessThan(canvas.x + 200);
    // Cards carry a type icon; summaries say what a node does (the model, the branch conditions).
    expect(await page.locator('[data-node-type="llm"] .type-icon svg').count()).toBeGreaterThan(0);
    expect(await page.locator('[data-node-type="llm"] [data-testid="node-summary"]').first().textContent()).toContain(
      "qwen-max",
    );
    expect(await page.locator('[data-node-type="if-else"] .wf-port-label').first().textContent()).toMatch(/^IF .+ is /);
    await expect.poll(() => page.locator(".react-flow__minimap-node").count()).toBe(31);
    // Pan and zoom controls.
    const fitted = await zoom();
    await page.locator(".react-flow__controls-zoomin").click();
    await expect.poll(zoom).toBeGreaterThan(fitted);
    await page.locator(".react-flow__controls-zoomout").click();
    await shot("30-node-initial");
    // Fit shows more of the flow but keeps titles legible; so does zooming further out.
    const titleOnScreen = async () =>
      (await page
        .locator(".wf-title")
        .first()
        .evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize))) * (await zoom());
    await page.locator(".react-flow__controls-fitview").click();
    await expect.poll(zoom).toBeLessThan(0.6);
    // Far out, titles are drawn larger (or, tiniest, hidden behind the icon): never under 10.5 px on screen.
    for (let i = 0; i < 8 && (await page.locator(".flow-wrap").getAttribute("data-detail")) !== "far"; i++)
      await page.locator(".react-flow__controls-zoomin").click();
    expect(await titleOnScreen()).toBeGreaterThanOrEqual(10.5);
  });

  it("keeps saved positions, places only nodes without one, and saves dragged positions in the version", async () => {
    await createApp(placed);
    await openByName("placed");
    const a = (await page.locator('[data-node-id="start"]').boundingBox())!;
    const b = (await page.locator('[data-node-id="check"]').boundingBox())!;
    const z = await zoom();
    expect(b.x - a.x).toBeCloseTo(400 * z, -1);
    expect(b.y - a.y).toBeCloseTo(200 * z, -1);
    await page.locator('[data-node-id="done"]').waitFor();
    // Dragging changes the draft; saving puts the position in the new version.
    const head = page.locator('[data-node-id="check"] .wf-node-head');
    const h = (await head.boundingBox())!;
    await page.mouse.move(h.x + 60, h.y + h.height / 2);
    await page.mouse.down();
    await page.mouse.move(h.x + 60 + 100, h.y + h.height / 2 + 50, { steps: 8 });
    await page.mouse.up();
    await page.getByTestId("save").click();
    await page.getByText("saved version 2").waitFor();
    const v2 = await current("placed");
    const pos = v2.workflow.nodes.find((n: any) => n.id === "check").canvas.position;
    // (React Flow starts a drag after a few pixels of movement, so allow for them.)
    expect(Math.abs(pos.x - (400 + 100 / z))).toBeLessThan(16);
    expect(Math.abs(pos.y - (200 + 50 / z))).toBeLessThan(16);
    // The Dify export carries the new position, its absolute copy too.
    const exported = parseYaml(await (await s.api(`/api/apps/${await appId("placed")}/export`)).text()) as any;
    const out = exported.workflow.graph.nodes.find((n: any) => n.id === "check");
    expect(out.position).toEqual(pos);
    expect(out.positionAbsolute).toEqual(pos);
    // The unplaced node got a position too, and everything reopens where it was.
    expect(v2.workflow.nodes.find((n: any) => n.id === "done").canvas.position).toBeTruthy();
    await openByName("placed");
    const a2 = (await page.locator('[data-node-id="start"]').boundingBox())!;
    const b2 = (await page.locator('[data-node-id="check"]').boundingBox())!;
    const z2 = await zoom();
    expect(Math.abs(b2.x - a2.x - pos.x * z2)).toBeLessThan(3);
  });

  it("draws a node's warnings on the node itself", async () => {
    // Still the "placed" app: its IF case has no condition, which the analyser warns about.
    const warning = page.locator('[data-node-id="check"] [data-testid="node-warning"]');
    await warning.waitFor();
    expect(await warning.textContent()).toContain("has no conditions");
    expect(await warning.isVisible()).toBe(true);
  });

  it("shows a tool and a knowledge base that nothing serves on their nodes, before running", async () => {
    await createApp(unserved);
    await openByName("unserved");
    const tool = page.locator('[data-node-id="search"] [data-testid="node-warning"]');
    await tool.waitFor();
    expect(await tool.textContent()).toContain("tavily/tavily_search");
    expect(await tool.textContent()).toContain("not served here");
    const kb = page.locator('[data-node-id="kr"] [data-testid="node-warning"]');
    await kb.waitFor();
    expect(await kb.textContent()).toContain("policies-2024");
    expect(await kb.isVisible()).toBe(true);
    await shot("unserved-tool-and-knowledge");
  });

  it("opens a small workflow whole, with edges drawn under the cards", async () => {
    await importFile(ROUTING);
    const canvas = (await page.getByTestId("canvas").boundingBox())!;
    const cards = page.locator(".react-flow__node");
    expect(await cards.count()).toBe(6);
    for (const b of await cards.evaluateAll((els) => els.map((e) => e.getBoundingClientRect().toJSON()))) {
      expect(b.x).toBeGreaterThanOrEqual(canvas.x);
      expect(b.x + b.width).toBeLessThanOrEqual(canvas.x + canvas.width);
    }
    const summary = page.locator(".wf-summary").first();
    const onScreen =
      (await summary.evaluate((el) => Number.parseFloat(getComputedStyle(el).fontSize))) * (await zoom());
    expect(onScreen).toBeGreaterThanOrEqual(8.9);
    const z = (sel: string) =>
      page.locator(sel).evaluateAll((els) => els.map((e) => Number(getComputedStyle(e).zIndex) || 0));
    expect(Math.max(...(await z(".react-flow__edges > svg")))).toBeLessThan(
      Math.min(...(await z(".react-flow__node"))),
    );
  });

  it("the LLM inspector offers exactly the values available at that node, and shows prompt references as chips", async () => {
    await openByName("Conditional Routing Workflow");
    const llmNode = page.locator('[data-node-type="llm"]').first();
    const llmId = (await llmNode.getAttribute("data-node-id"))!;
    await page.getByTestId("tab-inspector").click();
    await llmNode.click();
    await page.getByTestId("model-field").waitFor();
    // `{{#…#}}` references in the prompt are chips named by node title.
    const chip = page.locator('[data-testid="ref-chip"]').first();
    await chip.waitFor();
    expect(await chip.textContent()).toMatch(/^Start \/ /);
    // Open the list from the prompt that holds the reference, as a user about to add another would.
    const prompt = page.locator(".prompt-editor", { has: page.getByTestId("ref-chip") }).last();
    await prompt.scrollIntoViewIfNeeded();
    await prompt.getByTestId("insert-variable").click();
    const menu = page.getByTestId("var-menu");
    await menu.waitFor();
    await menu.locator('[data-testid="var-option"]').first().waitFor();
    const offered = await menu
      .locator('[data-testid="var-option"]')
      .evaluateAll((els) => els.map((e) => e.getAttribute("data-selector")));
    const draft = (await current("Conditional Routing Workflow")).workflow;
    const expected = (
      (await (
        await s.api("/api/analyse/available", { method: "POST", json: { workflow: draft, nodeId: llmId } })
      ).json()) as any
    ).available.map((a: any) => a.selector.join("."));
    expect(offered).toEqual(expected);
    // Nothing downstream of the LLM node is offered (the aggregator, the other branch's LLM).
    const downstream = draft.edges.filter((e: any) => e.source === llmId).map((e: any) => e.target);
    for (const id of downstream) expect(offered.some((o) => o?.startsWith(`${id}.`))).toBe(false);
    await shot("llm-inspector-picker");
    // Picking one inserts the reference at the cursor.
    const before = await page.locator('[data-testid="ref-chip"]').count();
    await menu.locator('[data-testid="var-option"][data-selector="sys.user_id"]').click();
    await expect.poll(() => page.locator('[data-testid="ref-chip"]').count()).toBe(before + 1);
  });

  it("edits if-else cases with a condition builder, no empty legacy fields, and saves them", async () => {
    await openByName("if-else");
    await page.getByTestId("tab-inspector").click();
    await page.locator('[data-node-id="ifelse_node"]').click();
    const builder = page.getByTestId("condition-builder");
    await builder.waitFor();
    expect(await page.getByTestId("field-conditions").count()).toBe(0);
    expect(await page.getByTestId("field-logical_operator").count()).toBe(0);
    expect(await page.getByTestId("case-0-cond-0-var").textContent()).toContain("Start");
    await page.getByTestId("case-0-cond-0-value").fill("bye");
    await page.getByTestId("case-0-add").click();
    await page.getByTestId("case-0-cond-1-var").click();
    await page.locator('[data-testid="var-option"][data-selector="sys.user_id"]').click();
    await page.getByTestId("case-0-cond-1-op").selectOption("not empty");
    await page.getByTestId("case-0-logic").click();
    await expect.poll(() => page.getByTestId("diag-count").textContent()).toMatch(/^0 error/);
    await shot("if-else-builder");
    await page.getByTestId("save").click();
    await page.getByText("saved version 2").waitFor();
    const cases = (await current("if-else")).workflow.nodes.find((n: any) => n.id === "ifelse_node").config.cases;
    expect(cases[0].logical_operator).toBe("or");
    expect(cases[0].conditions[0].value).toBe("bye");
    expect(cases[0].conditions[1]).toMatchObject({
      variable_selector: ["sys", "user_id"],
      comparison_operator: "not empty",
    });
  });

  it("shows a legacy single-case if-else as its case and writes it back in the cases layout", async () => {
    await createApp(legacyIfElse);
    await openByName("legacy if-else");
    await page.getByTestId("tab-inspector").click();
    await page.locator('[data-node-id="gate"]').click();
    await page.getByTestId("condition-builder").waitFor();
    expect(await page.getByTestId("case-0-cond-0-value").inputValue()).toBe("yes");
    await page.getByTestId("case-0-cond-0-value").fill("no");
    await page.getByTestId("save").click();
    await page.getByText("saved version 2").waitFor();
    const cfg = (await current("legacy if-else")).workflow.nodes.find((n: any) => n.id === "gate").config;
    expect(cfg.cases[0]).toMatchObject({ case_id: "true", conditions: [{ value: "no" }] });
    expect(cfg.conditions).toBeUndefined();
    expect(cfg.logical_operator).toBeUndefined();
  });

  it("edits code in a code editor that knows the language", async () => {
    await importFile(WORD_STATS);
    await page.getByTestId("tab-inspector").click();
    await page.locator('[data-node-type="code"]').click();
    const lang = page.getByTestId("code-language");
    await lang.waitFor();
    expect(await lang.inputValue()).toBe("javascript");
    expect(await page.locator('[data-testid="code-editor"] .cm-content').textContent()).toContain("function main");
    // The editor highlights the syntax of the language.
    expect(await page.locator('[data-testid="code-editor"] .cm-content span').count()).toBeGreaterThan(3);
  });

  it("runs with a log and a trace that name nodes by title, numbers from 10 up whole, per-node data, time and tokens", async () => {
    await openByName("Conditional Routing Workflow");
    llm.enqueue(reply.text("A careful answer.", { usage: { input: 21, output: 9 } }));
    await page.getByTestId("tab-run").click();
    await page.getByTestId("input-user_input").fill("hello");
    // A select input offers the options the start node declares.
    await page.getByTestId("input-input_type").selectOption("general");
    await page.getByTestId("run-button").click();
    await page
      .locator('[data-testid="run-result"]:not([data-status="running"]):not([data-status="starting"])')
      .waitFor();
    const status = await page.getByTestId("run-result").getAttribute("data-status");
    expect(status, `${await page.getByTestId("run-result").textContent()} ${pageErrors.join("\n")}`).toBe("succeeded");
    await page.getByTestId("run-tab-log").click();
    const events = page.getByTestId("run-event");
    expect(await events.count()).toBeGreaterThanOrEqual(10);
    const log = await page.getByTestId("run-events").textContent();
    const wf = (await current("Conditional Routing Workflow")).workflow;
    for (const n of wf.nodes) expect(log).not.toMatch(new RegExp(`\\b${n.id}\\b`));
    expect(log).toContain(wf.nodes.find((n: any) => n.type === "start").title);
    // The tenth entry's number is drawn whole inside the panel.
    const tenth = events.nth(9).locator(".event-n");
    expect(await tenth.textContent()).toBe("10");
    const box = (await tenth.boundingBox())!;
    const panel = (await page.getByTestId("run-events").boundingBox())!;
    expect(box.x).toBeGreaterThanOrEqual(panel.x);
    expect(await tenth.evaluate((e) => e.scrollWidth <= e.clientWidth + 1)).toBe(true);

    await page.getByTestId("run-tab-trace").click();
    const rows = page.locator(".trace-row");
    await rows.first().waitFor();
    const titles = await page.locator(".trace-title").allTextContents();
    for (const t of titles) for (const n of wf.nodes) expect(t).not.toBe(n.id);
    const llmNodeRow = page.locator(".trace-row", { has: page.getByTestId("trace-tokens") }).first();
    expect(await llmNodeRow.getByTestId("trace-tokens").textContent()).toContain("30");
    await llmNodeRow.locator(".trace-head").click();
    await llmNodeRow.getByTestId("trace-outputs").waitFor();
    expect(await llmNodeRow.getByTestId("trace-outputs").textContent()).toContain("A careful answer.");
    expect(await llmNodeRow.locator(".trace-time").textContent()).toMatch(/\d+ (ms|s)/);
    expect(await llmNodeRow.getByTestId("trace-tokens").textContent()).toBe("30 tokens");
    await shot("run-trace");
    // The branch an if-else took is named as its card names it, not by port id.
    const ifRow = page.locator(".trace-row").filter({ hasText: "Route by Input Type" });
    await ifRow.locator(".trace-head").click();
    expect(await ifRow.getByTestId("trace-branch").textContent()).toBe("ELSE");
  });

  it("uploads a file input through the API and runs with it", async () => {
    await createApp(fileEcho);
    await openByName("file echo");
    await page.getByTestId("tab-run").click();
    const file = join(scratch, "report.txt");
    writeFileSync(file, "quarterly numbers");
    await page.getByTestId("input-doc").setInputFiles(file);
    await page.getByTestId("uploaded-file").waitFor();
    expect(await page.getByTestId("uploaded-file").textContent()).toContain("report.txt");
    await page.getByTestId("run-button").click();
    await page.locator('[data-testid="run-result"][data-status="succeeded"]').waitFor();
    expect(await page.getByTestId("run-outputs").textContent()).toContain("got report.txt");
  });

  it("shows a paused run with its human-input form; answering it there resumes the run", async () => {
    const wf = buildWorkflow({
      nodes: [
        {
          id: "start",
          type: "start",
          title: "Start",
          variables: [{ variable: "item", label: "Item", type: "text-input", required: true }],
        },
        tpl("draft", "order for {{ i }}", { i: ["start", "item"] }, { title: "Draft order" }),
        {
          id: "ask",
          type: "human-input",
          title: "Manager approval",
          form_content: "Approve {{#draft.output#}}?\nReason: {{#$output.reason#}}",
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
        {
          id: "end",
          type: "end",
          title: "End",
          outputs: [{ variable: "decision", value_selector: ["agg", "output"] }],
        },
      ],
      edges: [
        ["start", "draft"],
        ["draft", "ask"],
        ["ask", "approve", "yes"],
        ["ask", "reject", "no"],
        ["ask", "__timeout", "late"],
        ["yes", "agg"],
        ["no", "agg"],
        ["late", "agg"],
        ["agg", "end"],
      ],
    });
    await createApp({ ...wf, name: "approval" });
    // The app list shows apps as of its last load (a reload now stays on the open app's URL).
    await page.goto(s.url);
    await openByName("approval");
    await page.getByTestId("tab-run").click();
    await page.getByTestId("input-item").fill("12 chairs");
    await page.getByTestId("run-button").click();
    await page.locator('[data-testid="run-result"][data-status="paused"]').waitFor();
    const form = page.getByTestId("human-input-form");
    await form.waitFor();
    expect(await form.textContent()).toContain("Manager approval");
    expect(await page.getByTestId("human-input-content").textContent()).toBe(
      "Approve order for 12 chairs?\nReason: [reason]",
    );
    // The waiting node is marked paused on the canvas.
    expect(await page.locator(".wf-status.st-paused").count()).toBe(1);
    await page.getByTestId("form-input-reason").fill("within budget");
    await shot("run-paused-form");
    await page.getByTestId("form-action-approve").click();
    await page.locator('[data-testid="run-result"][data-status="succeeded"]').waitFor();
    expect(await page.getByTestId("run-outputs").textContent()).toContain("approved: within budget");
    expect(await page.getByTestId("human-input-form").count()).toBe(0);
    await page.getByTestId("run-tab-log").click();
    expect(await page.getByTestId("run-events").textContent()).toContain("run finished → paused");
  });

  it("carries conversation variables from one chat run to the next, until a new conversation", async () => {
    await createApp(chatCounter);
    await openByName("turn counter");
    await page.getByTestId("tab-run").click();
    const send = async (text: string, n: number) => {
      await page.getByTestId("run-query").fill(text);
      await page.getByTestId("run-button").click();
      await expect.poll(() => page.getByTestId("chat-answer").count()).toBe(n);
      await expect
        .poll(() =>
          page
            .getByTestId("chat-answer")
            .nth(n - 1)
            .textContent(),
        )
        .toMatch(/^turn \d+: /);
    };
    await send("hello", 1);
    await send("again", 2);
    expect(await page.getByTestId("chat-answer").nth(1).textContent()).toBe("turn 2: again");
    await page.getByTestId("conversation-variables").getByText("2").first().waitFor();
    await page.getByTestId("new-conversation").click();
    await send("fresh", 1);
    expect(await page.getByTestId("chat-answer").first().textContent()).toBe("turn 1: fresh");
  });

  it("renders a chat answer's Markdown and Dify form (submitting it sends the next turn) and a failed turn's error", async () => {
    await createApp(formChat);
    await openByName("form answer");
    await page.getByTestId("tab-run").click();
    await page.getByTestId("run-query").fill("hello");
    await page.getByTestId("run-button").click();
    const first = page.getByTestId("chat-answer").first();
    await first.getByTestId("answer-form").waitFor();
    expect(await first.locator("strong").textContent()).toBe("Bold");
    expect(await first.locator('a[href="https://example.com/docs"]').getAttribute("rel")).toContain("noopener");
    // Hostile parts stay inert: no javascript: link, no element from raw HTML (shown as text instead).
    expect(await first.locator('a[href^="javascript"]').count()).toBe(0);
    expect(await first.locator("img").count()).toBe(0);
    expect(await first.textContent()).toContain("<img src=x onerror=alert(1)>");
    const form = first.getByTestId("answer-form");
    await form.locator('select[name="size"]').selectOption("m");
    await form.locator('input[name="agree"]').check();
    await form.getByRole("button", { name: "Go" }).click();
    await expect.poll(() => page.getByTestId("chat-answer").count()).toBe(2);
    await expect
      .poll(() => page.getByTestId("chat-answer").nth(1).textContent())
      .toContain('You said: {"name":"Ada","size":"m","agree":true}');
    expect(await page.locator(".conversation .chat-msg.user").nth(1).textContent()).toBe(
      '{"name":"Ada","size":"m","agree":true}',
    );
    await shot("answer-markdown-form");

    await createApp(failingChat);
    await openByName("failing chat");
    await page.getByTestId("tab-run").click();
    await page.getByTestId("run-query").fill("go");
    await page.getByTestId("run-button").click();
    const failed = page.getByTestId("turn-error");
    await failed.waitFor();
    expect(await failed.textContent()).toMatch(/^This turn failed: .+\(http\.\w+\)$/);
    await shot("answer-failed-turn");
  });

  it("the version diff names nodes by title, fields by name and references by title", async () => {
    const translate = (endFrom: string, fr: string) => ({
      weft: 1,
      name: "diff names",
      mode: "workflow",
      nodes: [
        { id: "s", type: "start", title: "Start", config: { variables: [{ variable: "q", type: "paragraph" }] } },
        {
          id: "1005",
          type: "template-transform",
          title: "Translate to German",
          config: { variables: [{ variable: "q", value_selector: ["s", "q"] }], template: "de {{ q }}" },
        },
        {
          id: "1007",
          type: "template-transform",
          title: "Translate to French",
          config: { variables: [{ variable: "q", value_selector: ["s", "q"] }], template: fr },
        },
        {
          id: "e",
          type: "end",
          title: "End",
          config: { outputs: [{ variable: "answer", value_selector: [endFrom, "output"] }] },
        },
      ],
      edges: [
        { source: "s", target: "1005" },
        { source: "s", target: "1007" },
        { source: "1005", target: "e" },
        { source: "1007", target: "e" },
      ],
    });
    const id = await createApp(translate("1005", "fr {{ q }}"));
    const put = await s.api(`/api/apps/${id}/workflow`, {
      method: "PUT",
      json: { workflow: translate("1007", "FR {{ q }}") },
    });
    expect(put.status).toBe(201);
    await openByName("diff names");
    await page.getByTestId("tab-versions").click();
    await page.getByTestId("version-2").getByRole("button", { name: "diff" }).click();
    const row = page.locator(`[data-testid="diff-field"][data-field="outputs 'answer'.value_selector"]`);
    await row.waitFor();
    expect(await row.textContent()).toContain("Translate to German / output → Translate to French / output");
    const changed = page.getByTestId("diff-changed");
    expect(await changed.locator("b").allTextContents()).toEqual(["Translate to French", "End"]);
    expect(await page.getByTestId("version-diff").textContent()).not.toMatch(/\b1005\b|\[0\]/);
    await shot("version-diff-names");
  });

  it("loading an older version draws its edges at once", async () => {
    await openByName("if-else");
    const id = await appId("if-else");
    const res = await s.api(`/api/apps/${id}/workflow`, {
      method: "PUT",
      json: {
        workflow: {
          weft: 1,
          name: "if-else",
          mode: "workflow",
          nodes: [
            {
              id: "s",
              type: "start",
              title: "Start",
              config: { variables: [{ variable: "query", type: "text-input" }] },
            },
            {
              id: "e",
              type: "end",
              title: "End",
              config: { outputs: [{ variable: "q", value_selector: ["s", "query"] }] },
            },
          ],
          edges: [{ source: "s", target: "e" }],
        },
      },
    });
    expect(res.status).toBe(201);
    await openByName("if-else");
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(2);
    await page.getByTestId("tab-versions").click();
    await page.getByTestId("version-1").getByText("load").click();
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(4);
    await expect.poll(() => page.locator(".react-flow__edge").count()).toBe(3);
    // Every edge has a drawn path.
    const paths = await page
      .locator(".react-flow__edge path.react-flow__edge-path")
      .evaluateAll((els) => els.map((e) => e.getAttribute("d") ?? ""));
    expect(paths.filter((d) => d.length > 0)).toHaveLength(3);
  });

  it("exports Dify YAML", async () => {
    const [dl] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export").click()]);
    expect(dl.suggestedFilename()).toMatch(/\.yml$/);
  });

  it("chats with the agent, reviews its proposal and sees the canvas change to it on Apply (to the draft)", {
    timeout: 90_000,
  }, async () => {
    await openByName("if-else");
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
        await shot("agent-failed");
        throw new Error(
          `${e.message}\nunmatched LLM requests: ${llm.unmatched.length}\npage errors: ${pageErrors.join("\n")}`,
        );
      });
    // Nothing is applied yet: the proposal is on the canvas, the app is still at version 3. The proposal is made
    // against the draft (version 1 loaded by the test before), so its template node is marked, added or changed.
    await page.locator('[data-testid="review-bar"][data-state="open"]').waitFor();
    await page.locator('[data-node-type="template-transform"][data-mark]').waitFor();
    expect((await current("if-else")).version).toBe(3);
    await page.getByTestId("proposal-apply").click();
    await page.getByTestId("review-bar").waitFor({ state: "detached" });
    await page
      .locator('[data-node-type="template-transform"]:not([data-mark="added"]):not([data-mark="changed"])')
      .waitFor();
    await expect.poll(() => page.locator(".react-flow__node").count()).toBe(3);
    // Applied to the draft: no new version (what /v1 runs changes only with Publish); Versions offers its undo.
    expect((await current("if-else")).version).toBe(3);
    expect((await serverDraft("if-else")).workflow.nodes.map((n: any) => n.type).sort()).toEqual([
      "end",
      "start",
      "template-transform",
    ]);
    await page.getByTestId("tab-versions").click();
    await page.getByTestId("undo").waitFor();
    expect(await page.getByTestId("version-4").count()).toBe(0);
    await page.getByTestId("tab-run").click();
    await page.getByTestId("input-query").fill("hi");
    await page.getByTestId("run-button").click();
    await page.locator('[data-testid="run-result"][data-status="succeeded"]').waitFor();
    expect(await page.getByTestId("run-outputs").textContent()).toContain("[hi]");
  });

  describe("AI proposal review", () => {
    let id: string;
    let original: any;
    const nodeAt = (nodeId: string) => page.locator(`.wf-node[data-node-id="${nodeId}"]`);
    const marks = async () =>
      page
        .locator(".wf-node[data-mark]")
        .evaluateAll((els) =>
          Object.fromEntries(
            els
              .filter((e) => e.getAttribute("data-mark"))
              .map((e) => [e.getAttribute("data-node-id"), e.getAttribute("data-mark")]),
          ),
        );
    const propose = async (message: string) => {
      llm.enqueue(
        reply.toolCall("edit_workflow", { edits: reviewEdits }),
        reply.text("I added a Shout step after Wrap and removed the side note."),
      );
      await page.getByTestId("tab-chat").click();
      await page.getByTestId("chat-input").fill(message);
      await page.getByTestId("chat-send").click();
      await page
        .locator('[data-testid="review-bar"][data-state="open"]')
        .waitFor()
        .catch(async (e) => {
          await shot("review-failed");
          throw new Error(
            `${e.message}\nunmatched LLM requests: ${llm.unmatched.length}\npage errors: ${pageErrors.join("\n")}`,
          );
        });
      await page.locator('.flow-wrap[data-view="ready"]').waitFor();
    };
    const unchanged = async (version: number) => {
      const cur = await current("review me");
      expect(cur.version).toBe(version);
      expect(cur.workflow).toEqual(original);
    };

    beforeAll(async () => {
      id = await createApp(reviewed);
      original = ((await (await s.api(`/api/apps/${id}/workflow`)).json()) as any).workflow;
    });

    it("propose → highlighted diff → reject (nothing changed) → propose → apply to the draft (exactly the diff) → undo (the original)", {
      timeout: 180_000,
    }, async () => {
      await openByName("review me");
      await propose("shout the wrapped query and drop the side note");

      // The highlighted diff: every mark, edges added and removed, the legend, the summary from the diff.
      const added = await page.locator('.wf-node[data-mark="added"]').getAttribute("data-node-id");
      expect(await marks()).toEqual({ wrap: "changed", end: "changed", note: "removed", [added!]: "added" });
      expect(await page.locator(".react-flow__edge.edge-added").count()).toBe(2);
      expect(await page.locator(".react-flow__edge.edge-removed").count()).toBe(2);
      expect(await page.getByTestId("review-legend").textContent()).toContain("+ new node (1)");
      expect(await nodeAt(added!).getByTestId("node-mark").textContent()).toBe("+ new");
      expect(await nodeAt("note").getByTestId("node-mark").textContent()).toBe("− removed");
      const summary = (await page.getByTestId("proposal-summary").textContent())!;
      expect(summary).toContain("Shout");
      expect(summary).toContain("Side note");
      // Nothing changed yet.
      await unchanged(1);
      await shot("review-1-proposed");

      // The inspector of a changed node: its field change old → new, and nothing else.
      await nodeAt("wrap").click();
      const rows = page.locator('[data-testid="inspector"][data-review="changed"] [data-testid="field-change"]');
      await rows.first().waitFor();
      expect(await rows.count()).toBe(1);
      expect(await rows.first().getAttribute("data-field")).toBe("template");
      expect(await rows.first().getByTestId("field-old").textContent()).toBe("[{{ q }}]");
      expect(await rows.first().getByTestId("field-new").textContent()).toBe("<<{{ q }}>>");
      await shot("review-2-inspector");

      // Reject: the same version, the same workflow, the canvas back to it.
      await page.getByTestId("proposal-reject").click();
      await page.getByTestId("review-bar").waitFor({ state: "detached" });
      await unchanged(1);
      await nodeAt("note").waitFor();
      expect(await marks()).toEqual({});
      expect(await page.locator(".react-flow__node").count()).toBe(4);
      const rejected = ((await (await s.api(`/api/apps/${id}/proposals?status=rejected`)).json()) as any).proposals;
      expect(rejected).toHaveLength(1);
      // The chat tells the truth about the turn's proposal (issue 36 item 6), not "Proposed, not applied yet".
      const turnOutcomes = page.locator('[data-testid="chat-outcome"][data-kind="proposed"]');
      await page.getByTestId("tab-chat").click();
      await expect.poll(() => turnOutcomes.nth(0).getAttribute("data-decision")).toBe("rejected");
      expect(await turnOutcomes.nth(0).textContent()).toMatch(/^Rejected, nothing changed: /);
      await shot("review-3-rejected");

      // Propose again and apply: the draft (not a version: issue 29) differs from the original by exactly the diff.
      await propose("shout the wrapped query and drop the side note, please");
      const pid = await page.getByTestId("review-bar").getAttribute("data-proposal");
      const proposal = (await (await s.api(`/api/apps/${id}/proposals/${pid}`)).json()) as any;
      await page.getByTestId("proposal-apply").click();
      await page.getByTestId("review-bar").waitFor({ state: "detached" });
      await page.getByText(/Applied to the draft \(revision \d+\)\. Publish to make it live/).waitFor();
      await unchanged(1);
      const applied = await serverDraft("review me");
      expect(applied.dirty).toBe(true);
      const diff = diffWorkflows(original, applied.workflow) as any;
      expect(diff.nodesAdded).toHaveLength(1);
      expect(diff.nodesRemoved).toEqual(["note"]);
      expect([...diff.nodesChanged].sort()).toEqual(["end", "wrap"]);
      expect(diff.nodes.changed.find((n: any) => n.id === "wrap").changes).toEqual([
        { path: ["config", "template"], field: "template", kind: "changed", old: "[{{ q }}]", new: "<<{{ q }}>>" },
      ]);
      expect([...diff.edgesAdded].sort()).toEqual(
        [`${diff.nodesAdded[0]}:source→end`, `wrap:source→${diff.nodesAdded[0]}`].sort(),
      );
      expect([...diff.edgesRemoved].sort()).toEqual(["start:source→note", "wrap:source→end"]);
      expect(diff).toEqual(proposal.diff);
      // The canvas shows the new version, unmarked.
      await nodeAt(diff.nodesAdded[0]).waitFor();
      await nodeAt("note").waitFor({ state: "detached" });
      expect(await marks()).toEqual({});
      await page.getByTestId("tab-chat").click();
      await expect.poll(() => turnOutcomes.nth(1).getAttribute("data-decision")).toBe("applied");
      expect(await turnOutcomes.nth(1).textContent()).toMatch(/^Applied to the draft \(revision \d+\): /);
      await shot("review-4-applied");

      // Undo: the draft as it was before the apply, drawn on the canvas; no version was made.
      await page.getByTestId("tab-versions").click();
      await page.getByTestId("undo").click();
      await page.getByText(/Undone: the draft is back to how it was before/).waitFor();
      expect((await serverDraft("review me")).workflow).toEqual(original);
      await unchanged(1);
      await nodeAt("note").waitFor();
      await nodeAt(diff.nodesAdded[0]).waitFor({ state: "detached" });
      await page.getByTestId("undo").waitFor({ state: "detached" });
      expect(
        await page
          .locator('[data-testid^="version-"]')
          .evaluateAll((els) => els.map((e) => e.getAttribute("data-testid")).filter((t) => /^version-\d+$/.test(t!))),
      ).toEqual(["version-1"]);
      await page.getByTestId("tab-chat").click();
      await expect.poll(() => turnOutcomes.nth(1).textContent()).toMatch(/, then undone: /);
      await shot("review-5-undone");
      // After a reload the history says the same: it is the server's record, not the page's memory.
      await page.reload();
      // The deep link (/apps/:id) reopens the app itself.
      await page.locator('.flow-wrap[data-view="ready"]').waitFor();
      await page.getByTestId("tab-chat").click();
      await expect.poll(() => turnOutcomes.nth(0).getAttribute("data-decision")).toBe("rejected");
      await expect
        .poll(() => turnOutcomes.nth(1).textContent())
        .toMatch(/^Applied to the draft \(revision \d+\), then undone: /);
    });

    it("a rejected update shows its diagnostics, says nothing changed, and marks the reply as not applied", {
      timeout: 90_000,
    }, async () => {
      await openByName("review me");
      const before = await current("review me");
      llm.enqueue(
        reply.toolCall("edit_workflow", {
          edits: [{ op: "set_param", id: "4", field: "outputs", value: [["wrapped", ["output", "9"]]] }],
        }),
        reply.text("Done: the output now comes from the new step."),
      );
      await page.getByTestId("tab-chat").click();
      await page.getByTestId("chat-input").fill("take the output from step 9");
      await page.getByTestId("chat-send").click();
      const outcome = page.locator('[data-testid="chat-outcome"][data-kind="rejected"]');
      await outcome.waitFor();
      expect(await outcome.textContent()).toContain("Nothing changed.");
      expect(await outcome.getByTestId("chat-outcome-diags").locator("li").count()).toBeGreaterThan(0);
      const msg = page.locator('[data-testid="chat-assistant"][data-not-applied="true"]');
      expect(await msg.getByTestId("not-applied").textContent()).toBe("Not applied");
      expect(await msg.textContent()).toContain("Done: the output now comes from the new step.");
      expect(await page.getByTestId("review-bar").count()).toBe(0);
      const after = await current("review me");
      expect(after.version).toBe(before.version);
      expect(after.workflow).toEqual(before.workflow);
      await shot("review-6-rejected-update");
      // The same marks come back with the conversation when the app is opened again.
      await openByName("review me");
      await page.getByTestId("tab-chat").click();
      await page.locator('[data-testid="chat-outcome"][data-kind="rejected"]').waitFor();
    });

    it("a proposal made through the API shows when the app is opened; once the app moves on it says it is stale and cannot be applied", {
      timeout: 90_000,
    }, async () => {
      const made = await s.api(`/api/apps/${id}/proposals`, { method: "POST", json: { edits: reviewEdits } });
      expect(made.status).toBe(201);
      const p = (await made.json()) as any;
      await openByName("review me");
      await page.locator(`[data-testid="review-bar"][data-proposal="${p.id}"]`).waitFor();
      await nodeAt("note").and(page.locator('[data-mark="removed"]')).waitFor();
      // Put aside, the user edits (autosaved to the draft) and saves a version: the proposal was made against the
      // draft before and says so; it can never overwrite those edits.
      await page.getByTestId("review-hide").click();
      await page.locator('[data-testid="review-bar"][data-state="hidden"]').waitFor();
      expect(await marks()).toEqual({});
      await nodeAt("wrap").click();
      await page.getByTestId("field-title").fill("Wrap it");
      await page.getByTestId("review-show").click();
      await page.getByTestId("proposal-unsaved").waitFor();
      expect(await page.getByTestId("proposal-apply").isDisabled()).toBe(true);
      await shot("review-7-unsaved-edits");
      await page.getByTestId("review-hide").click();
      await page.getByTestId("save").click();
      await page.getByTestId("review-show").click();
      await page.getByTestId("proposal-stale").waitFor();
      expect(await page.getByTestId("proposal-apply").isDisabled()).toBe(true);
      const cur = await current("review me");
      expect(cur.workflow.nodes.find((n: any) => n.id === "wrap").title).toBe("Wrap it");
      await shot("review-8-stale");
      await page.getByTestId("proposal-reject").click();
      await page.getByTestId("review-bar").waitFor({ state: "detached" });
      expect((await current("review me")).version).toBe(cur.version);
    });
  });

  it("weft serve --sample keeps the browser signed in across a restart", { timeout: 180_000 }, async () => {
    const db = join(scratch, "sample.db");
    const first = await serveSample(db, scratch);
    const ctx1 = await browser.newContext({ viewport: { width: 1400, height: 860 } });
    try {
      const p1 = await ctx1.newPage();
      await p1.goto(first.url);
      await p1.getByTestId("api-key").fill(first.key);
      await p1.getByTestId("login").click();
      await p1.getByRole("link", { name: "Word statistics", exact: true }).waitFor();
      const state = await ctx1.storageState();
      await first.stop();
      const second = await serveSample(db, scratch);
      try {
        // What it prints is what the browser already holds.
        expect(second.key).toBe(first.key);
        expect(second.out).toContain("the same key as before");
        // The same browser, at the restarted server (its port is new here; a user's is the same each time).
        const origin = new URL(second.url).origin;
        const ctx2 = await browser.newContext({
          viewport: { width: 1400, height: 860 },
          storageState: { cookies: [], origins: state.origins.map((o) => ({ ...o, origin })) },
        });
        try {
          const p2 = await ctx2.newPage();
          await p2.goto(second.url);
          await p2.getByRole("link", { name: "Word statistics", exact: true }).waitFor();
          expect(await p2.getByTestId("api-key").count()).toBe(0);
        } finally {
          await ctx2.close();
        }
      } finally {
        await second.stop();
      }
    } finally {
      await first.stop();
      await ctx1.close();
    }
  });

  it("a key the server stops accepting leads back to the login with a clear message", async () => {
    const extra = await s.deps.apps.createKey("e2e-stale");
    await toAppList();
    await page.getByText("Log out").click();
    await page.getByTestId("api-key").fill(extra.key);
    await page.getByTestId("login").click();
    await page.getByTestId("app-list").waitFor();
    await s.deps.apps.revokeKey(extra.id);
    await page.getByRole("link", { name: "if-else", exact: true }).click();
    await page.getByTestId("api-key").waitFor();
    expect(await page.locator(".login").textContent()).toContain("no longer accepts the API key saved in this browser");
    // A stale key already in the browser at page load goes the same way.
    await page.evaluate(() => localStorage.setItem("weft.apiKey", "weft_from_an_old_server"));
    await page.reload();
    await page.getByTestId("api-key").waitFor();
    expect(await page.locator(".login").textContent()).toContain("no longer accepts the API key saved in this browser");
    await page.getByTestId("api-key").fill(s.key);
    await page.getByTestId("login").click();
    await page.getByTestId("app-list").waitFor();
    expect(pageErrors).toEqual([]);
  });
});
