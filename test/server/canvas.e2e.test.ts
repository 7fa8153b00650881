/**
 * The canvas defects of issue 36, one test each, in Chromium: workflows open fitted in the canvas (side panel
 * excluded), Fit fits, zoomed out the cards show icon and title only and never text under 9 px, the minimap
 * navigates, and placement never overlaps (palette, AI-added nodes, containers, their start nodes).
 */
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importDify } from "../../src/dsl/dify/index.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { openStudio, outside, overlaps, type Studio } from "../support/studio-browser.js";
import { CHROMIUM } from "../support/web-build.js";
import { corpusFile } from "./helpers.js";

const ROOT = resolve(import.meta.dirname, "../..");
const BIG = corpusFile("svcvit__Awesome-Dify-Workflow/DSL/完蛋！我被LLM包围了！（战绩排行版）.yml");
const TWO_ITERATIONS = corpusFile("svcvit__Awesome-Dify-Workflow/DSL/搜索大师.yml");
const ITERATION = corpusFile("svcvit__Awesome-Dify-Workflow/DSL/Claude3 Code Translation.yml");
const WORD_STATS = join(ROOT, "examples/word-stats.yml");

/** start → llm → end, saved positions one column apart, and an AI-added node between llm and end with none. */
function withInsertedNode(): Workflow {
  const at = (x: number) => ({ position: { x, y: 100 } });
  return {
    weft: 1,
    name: "inserted",
    mode: "workflow",
    nodes: [
      {
        id: "start",
        type: "start",
        title: "Start",
        config: { variables: [{ variable: "q", label: "Q", type: "text-input", required: true }] },
        canvas: at(0),
      },
      {
        id: "shout",
        type: "template-transform",
        title: "Shout",
        config: { variables: [{ variable: "q", value_selector: ["start", "q"] }], template: "{{ q }}!" },
        canvas: at(330),
      },
      {
        id: "wrap",
        type: "template-transform",
        title: "Wrap (added)",
        config: { variables: [{ variable: "s", value_selector: ["shout", "output"] }], template: "[{{ s }}]" },
      },
      {
        id: "end",
        type: "end",
        title: "End",
        config: { outputs: [{ variable: "out", value_selector: ["wrap", "output"] }] },
        canvas: at(660),
      },
    ],
    edges: [
      { source: "start", target: "shout" },
      { source: "shout", target: "wrap" },
      { source: "wrap", target: "end" },
    ],
  } as unknown as Workflow;
}

describe.skipIf(!existsSync(CHROMIUM))("canvas: see it whole, clean placement", () => {
  let studio: Studio;
  beforeAll(async () => {
    studio = await openStudio();
  }, 240_000);
  afterAll(async () => {
    await studio?.close();
  });
  const dsl = (file: string) => readFileSync(file, "utf8");
  const wfOf = (file: string) => importDify(dsl(file)).workflow;
  const allDrawn = async (n: number) =>
    expect.poll(() => studio.page.locator(".react-flow__node").count(), { timeout: 30_000 }).toBe(n);

  it("a 31-node app opens fitted: every card inside the canvas, none under the side panel", async () => {
    await studio.openDsl(dsl(BIG));
    await allDrawn(31);
    await studio.shot("canvas-open-31-fitted");
    expect(outside(await studio.cards(), await studio.canvasRect())).toEqual([]);
    const side = (await studio.page.locator("aside.side").boundingBox())!;
    for (const c of await studio.cards()) expect(c.x + c.width).toBeLessThanOrEqual(side.x + 1);
  });

  it("the 7-node sample opens with End inside the canvas on a laptop-sized window", async () => {
    await studio.page.setViewportSize({ width: 1280, height: 720 });
    try {
      await studio.openDsl(dsl(WORD_STATS));
      await studio.shot("canvas-sample-1280");
      expect(outside(await studio.cards(), await studio.canvasRect())).toEqual([]);
    } finally {
      await studio.page.setViewportSize({ width: 1400, height: 860 });
    }
  });

  it("Fit fits the whole flow, however far out that is", async () => {
    await studio.openDsl(dsl(BIG));
    await allDrawn(31);
    for (let i = 0; i < 3; i++) await studio.page.locator(".react-flow__controls-zoomin").click();
    await studio.fit();
    await studio.shot("canvas-fit-31");
    expect(outside(await studio.cards(), await studio.canvasRect())).toEqual([]);
    expect(await studio.zoom()).toBeLessThan(0.5);
  });

  it("zoomed out, cards show icon and a large title only; no visible text is under 9 px on screen", async () => {
    await studio.openDsl(dsl(BIG));
    await allDrawn(31);
    const texts = async () => {
      const z = await studio.zoom();
      const all = await studio.page
        .locator(".react-flow__node")
        .evaluateAll((els) =>
          els.flatMap((el) =>
            [
              ...el.querySelectorAll<HTMLElement>(
                ".wf-title, .wf-summary, .wf-port-label, .wf-diag-text, .wf-container-label",
              ),
            ]
              .filter((t) => t.offsetParent !== null && getComputedStyle(t).visibility !== "hidden" && t.textContent)
              .map((t) => ({ cls: t.className, size: Number.parseFloat(getComputedStyle(t).fontSize) })),
          ),
        );
      expect(all.filter((t) => t.cls.includes("wf-summary") || t.cls.includes("wf-port-label"))).toEqual([]);
      for (const t of all) expect(t.size * z, `${t.cls} at ${z}`).toBeGreaterThanOrEqual(9);
      return all;
    };
    const detail = () => studio.page.locator(".flow-wrap").getAttribute("data-detail");
    await studio.fit();
    expect(await detail()).not.toBe("near");
    await texts();
    // Zoomed in to the far look: every card still shows its title, large.
    for (let i = 0; i < 12 && (await detail()) !== "far"; i++)
      await studio.page.locator(".react-flow__controls-zoomin").click();
    await expect.poll(detail, { timeout: 30_000 }).toBe("far");
    expect((await texts()).filter((t) => t.cls.includes("wf-title")).length).toBeGreaterThanOrEqual(31);
    await studio.shot("canvas-far-31");
    // Zoomed out to the tiny look: icons only, no text at all but containers' titles.
    for (let i = 0; i < 4; i++) await studio.page.locator(".react-flow__controls-zoomout").click();
    await expect.poll(detail, { timeout: 30_000 }).toBe("tiny");
    await texts();
    await studio.shot("canvas-tiny-31");
  });

  it("clicking the minimap brings that part of the flow to the centre", async () => {
    await studio.openDsl(dsl(BIG));
    await allDrawn(31);
    for (let i = 0; i < 4; i++) await studio.page.locator(".react-flow__controls-zoomin").click();
    const transform = () =>
      studio.page.locator(".react-flow__viewport").evaluate((el) => getComputedStyle(el).transform);
    const before = await transform();
    const mini = (await studio.page.locator(".react-flow__minimap svg").boundingBox())!;
    await studio.page.mouse.click(mini.x + mini.width * 0.9, mini.y + mini.height * 0.5);
    await expect.poll(transform, { timeout: 30_000 }).not.toBe(before);
  });

  it("a node added from the palette after a selected node goes right of it and overlaps nothing", async () => {
    const wf = wfOf(WORD_STATS);
    await studio.openDsl(dsl(WORD_STATS));
    await allDrawn(wf.nodes.length);
    const start = wf.nodes.find((n) => n.type === "start")!;
    await studio.page.locator(`.react-flow__node[data-id="${start.id}"]`).click();
    await studio.page.getByTestId("palette-open").click();
    await studio.page.getByTestId("palette-item-template-transform").click();
    await allDrawn(wf.nodes.length + 1);
    const cards = await studio.cards();
    const added = cards.find((c) => !wf.nodes.some((n) => n.id === c.id))!;
    const from = cards.find((c) => c.id === start.id)!;
    await studio.shot("canvas-palette-added");
    expect(added.x).toBeGreaterThan(from.x + from.width);
    expect(overlaps({ ...wf, nodes: [...wf.nodes, { id: added.id } as Workflow["nodes"][number]] }, cards)).toEqual([]);
  });

  it("an AI-added node between a node and End goes before End, which moves aside", async () => {
    const wf = withInsertedNode();
    await studio.open(wf);
    await allDrawn(4);
    await studio.shot("canvas-inserted-before-end");
    const cards = await studio.cards();
    const box = (id: string) => cards.find((c) => c.id === id)!;
    expect(box("wrap").x).toBeGreaterThan(box("shout").x + box("shout").width);
    expect(box("end").x).toBeGreaterThan(box("wrap").x + box("wrap").width);
    expect(overlaps(wf, cards)).toEqual([]);
  });

  it("auto-layout never stacks two iteration containers", async () => {
    const wf = wfOf(TWO_ITERATIONS);
    await studio.openDsl(dsl(TWO_ITERATIONS));
    await allDrawn(wf.nodes.length);
    await studio.autoLayout();
    await studio.shot("canvas-two-iterations-laid-out");
    expect(overlaps(wf, await studio.cards())).toEqual([]);
  });

  it("an iteration's start node is labelled and does not cover the first body node", async () => {
    const wf = wfOf(ITERATION);
    await studio.openDsl(dsl(ITERATION));
    await allDrawn(wf.nodes.length);
    const start = studio.page.locator('[data-node-type="iteration-start"]');
    await expect.poll(() => start.locator(".wf-title").textContent(), { timeout: 30_000 }).toBe("Start");
    // Whole, not cut off with an ellipsis.
    expect(await start.locator(".wf-title").evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    await studio.shot("canvas-iteration-start");
    expect(overlaps(wf, await studio.cards())).toEqual([]);
  });

  it("the palette searches and groups node types by category", async () => {
    await studio.openDsl(dsl(WORD_STATS));
    const page = studio.page;
    await page.getByTestId("palette-open").click();
    const palette = page.getByTestId("palette");
    expect(await palette.locator("section h4").allTextContents()).toEqual(
      expect.arrayContaining(["AI", "Logic", "Input & output"]),
    );
    expect(await page.getByTestId("palette-group-llm").getByTestId("palette-item-llm").count()).toBe(1);
    const all = await palette.locator(".palette-item").count();
    expect(all).toBeGreaterThan(10);
    await page.getByTestId("palette-search").fill("template-transform");
    await expect.poll(() => palette.locator(".palette-item").count(), { timeout: 30_000 }).toBe(1);
    expect(await page.getByTestId("palette-item-template-transform").count()).toBe(1);
    await page.getByTestId("palette-search").fill("no such node");
    await page.getByTestId("palette-empty").waitFor();
    await studio.shot("canvas-palette-search");
    await page.getByTestId("palette-search").press("Escape");
    await palette.waitFor({ state: "detached" });
  });

  it("+ on an edge inserts the picked node between its ends, wired, and pushes the later nodes right", async () => {
    const wf = withInsertedNode();
    wf.nodes = wf.nodes.filter((n) => n.id !== "wrap");
    wf.edges = [
      { source: "start", sourcePort: "source", target: "shout" },
      { source: "shout", sourcePort: "source", target: "end" },
    ] as Workflow["edges"];
    (wf.nodes.find((n) => n.id === "end")!.config as any).outputs = [
      { variable: "out", value_selector: ["shout", "output"] },
    ];
    const id = await studio.open(wf);
    const page = studio.page;
    await allDrawn(3);
    const endBefore = (await studio.cards()).find((c) => c.id === "end")!;
    await page.getByTestId("edge-insert-shout-end").click();
    await page.getByTestId("palette-search").fill("code");
    await page.getByTestId("palette-item-code").click();
    await allDrawn(4);
    const cards = await studio.cards();
    const added = cards.find((c) => !["start", "shout", "end"].includes(c.id))!;
    const box = (k: string) => cards.find((c) => c.id === k)!;
    await studio.shot("canvas-edge-insert");
    expect(added.x).toBeGreaterThan(box("shout").x + box("shout").width);
    expect(box("end").x).toBeGreaterThan(added.x + added.width);
    expect(box("end").x).toBeGreaterThan(endBefore.x);
    expect(overlaps({ ...wf, nodes: [...wf.nodes, { id: added.id } as Workflow["nodes"][number]] }, cards)).toEqual([]);
    // Wired: shout → new → end, and the old edge is gone (as the autosaved draft says).
    await expect
      .poll(
        async () => {
          const d = (await (await studio.server.api(`/api/apps/${id}/draft`)).json()) as any;
          return (d.workflow?.edges ?? []).map((e: any) => `${e.source}>${e.target}`).sort();
        },
        { timeout: 30_000 },
      )
      .toEqual([`${added.id}>end`, `shout>${added.id}`, "start>shout"].sort());
  });

  it("a node dragged from the palette onto the canvas is added where it is dropped", async () => {
    const wf = wfOf(WORD_STATS);
    await studio.openDsl(dsl(WORD_STATS));
    const page = studio.page;
    await allDrawn(wf.nodes.length);
    await page.getByTestId("palette-open").click();
    const area = await studio.canvasRect();
    await page
      .getByTestId("palette-item-template-transform")
      .dragTo(page.locator(".react-flow__pane"), { targetPosition: { x: 60, y: 30 } });
    await allDrawn(wf.nodes.length + 1);
    const cards = await studio.cards();
    const added = cards.find((c) => !wf.nodes.some((n) => n.id === c.id))!;
    expect(added.type).toBe("template-transform");
    expect(Math.abs(added.x - (area.x + 60))).toBeLessThan(4);
    expect(overlaps({ ...wf, nodes: [...wf.nodes, { id: added.id } as Workflow["nodes"][number]] }, cards)).toEqual([]);
  });

  it("keyboard: Ctrl+D duplicates, Ctrl+C / Ctrl+V copy and paste, Delete removes; copies never overlap", async () => {
    const wf = wfOf(WORD_STATS);
    await studio.openDsl(dsl(WORD_STATS));
    const page = studio.page;
    await allDrawn(wf.nodes.length);
    const some = wf.nodes.find((n) => n.type !== "start" && n.type !== "end")!;
    await page.locator(`.react-flow__node[data-id="${some.id}"]`).click();
    await page.keyboard.press("Control+d");
    await allDrawn(wf.nodes.length + 1);
    await page.keyboard.press("Control+c");
    await page.keyboard.press("Control+v");
    await allDrawn(wf.nodes.length + 2);
    const cards = await studio.cards();
    const copies = cards.filter((c) => !wf.nodes.some((n) => n.id === c.id));
    expect(copies.map((c) => c.type)).toEqual([some.type, some.type]);
    const all = { ...wf, nodes: [...wf.nodes, ...copies.map((c) => ({ id: c.id }) as Workflow["nodes"][number])] };
    await expect.poll(async () => overlaps(all, await studio.cards()).length, { timeout: 30_000 }).toBe(0);
    await studio.shot("canvas-keyboard-copies");
    await page.locator(`.react-flow__node[data-id="${copies[1]!.id}"]`).click();
    await page.keyboard.press("Delete");
    await allDrawn(wf.nodes.length + 1);
  });

  it("raised no page errors", () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
