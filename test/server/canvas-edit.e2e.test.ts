/**
 * Issue 36 item 3, the rest of it, in Chromium: undo/redo of canvas edits (Ctrl+Z / Shift+Ctrl+Z and the
 * buttons) — moves, adds, deletes, connects, paste, an inspector edit — each undo autosaved as any edit, and
 * Dify's "+" on a node's output port, which inserts and wires the picked node after it without overlap.
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Workflow } from "../../src/ir/workflow.js";
import { openStudio, overlaps, type Rect, type Studio } from "../support/studio-browser.js";
import { CHROMIUM } from "../support/web-build.js";

/** start → shout → End, and start → aside whose output is not wired yet (a connect to make). */
function flow(): Workflow {
  const at = (x: number, y = 100) => ({ position: { x, y } });
  return {
    weft: 1,
    name: "edits",
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
        id: "aside",
        type: "template-transform",
        title: "Aside",
        config: { variables: [{ variable: "q", value_selector: ["start", "q"] }], template: "({{ q }})" },
        canvas: at(330, 300),
      },
      {
        id: "end",
        type: "end",
        title: "End",
        config: { outputs: [{ variable: "out", value_selector: ["shout", "output"] }] },
        canvas: at(660),
      },
    ],
    edges: [
      { source: "start", sourcePort: "source", target: "shout" },
      { source: "start", sourcePort: "source", target: "aside" },
      { source: "shout", sourcePort: "source", target: "end" },
    ],
  } as unknown as Workflow;
}

type Draft = { workflow: Workflow; revision: number };

describe.skipIf(!existsSync(CHROMIUM))("canvas: undo/redo and + on a port", () => {
  let studio: Studio;
  beforeAll(async () => {
    studio = await openStudio();
  }, 240_000);
  afterAll(async () => {
    await studio?.close();
  });
  const cardCount = () => studio.page.locator(".react-flow__node").count();
  const drawn = (n: number) => expect.poll(cardCount, { timeout: 30_000 }).toBe(n);
  const card = (id: string) => studio.page.locator(`.react-flow__node[data-id="${id}"]`);
  const box = async (id: string): Promise<Rect> => (await studio.cards()).find((c) => c.id === id)!;
  const serverDraft = async (app: string) =>
    (await (await studio.server.api(`/api/apps/${app}/draft`)).json()) as Draft;
  /** Waits until the autosaved server draft says what `read` expects. */
  const saved = (app: string, read: (d: Draft) => unknown, expected: unknown) =>
    expect.poll(async () => read(await serverDraft(app)), { timeout: 30_000 }).toEqual(expected);
  const edgesOf = (d: Draft) => d.workflow.edges.map((e) => `${e.source}>${e.target}`).sort();
  const nodeIds = (d: Draft) => d.workflow.nodes.map((n) => n.id).sort();
  const undoKey = () => studio.page.keyboard.press("Control+z");
  const redoKey = () => studio.page.keyboard.press("Control+Shift+z");

  it("Ctrl+Z and Shift+Ctrl+Z undo and redo a move, a connect, an add, a paste, a delete; each undo is autosaved", async () => {
    const id = await studio.open(flow());
    const page = studio.page;
    await drawn(4);
    expect(await page.getByTestId("edit-undo").isDisabled()).toBe(true);

    // Move: one drag is one step, however many frames.
    const before = await box("shout");
    const head = card("shout").locator(".wf-node-head");
    const h = (await head.boundingBox())!;
    await page.mouse.move(h.x + 20, h.y + h.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 6; i++) await page.mouse.move(h.x + 20, h.y + h.height / 2 + i * 25);
    await page.mouse.up();
    await expect.poll(async () => (await box("shout")).y, { timeout: 30_000 }).toBeGreaterThan(before.y + 100);
    await saved(
      id,
      (d) => (d.workflow.nodes.find((n) => n.id === "shout")!.canvas!.position as { y: number }).y > 100,
      true,
    );
    await undoKey();
    await expect.poll(async () => Math.round((await box("shout")).y), { timeout: 30_000 }).toBe(Math.round(before.y));
    await saved(id, (d) => (d.workflow.nodes.find((n) => n.id === "shout")!.canvas!.position as { y: number }).y, 100);
    await redoKey();
    await expect.poll(async () => (await box("shout")).y, { timeout: 30_000 }).toBeGreaterThan(before.y + 100);
    await page.getByTestId("edit-undo").click();
    await expect.poll(async () => Math.round((await box("shout")).y), { timeout: 30_000 }).toBe(Math.round(before.y));

    // Connect Aside → End by dragging from its output handle to End's input.
    const wired = ["aside>end", "shout>end", "start>aside", "start>shout"];
    const unwired = ["shout>end", "start>aside", "start>shout"];
    await card("aside").locator(".react-flow__handle.source").dragTo(card("end").locator(".react-flow__handle.target"));
    await saved(id, edgesOf, wired);
    await undoKey();
    await saved(id, edgesOf, unwired);
    await redoKey();
    await saved(id, edgesOf, wired);

    // Add from the palette, then undo it.
    await page.getByTestId("palette-open").click();
    await page.getByTestId("palette-item-code").click();
    await drawn(5);
    await undoKey();
    await drawn(4);
    await saved(id, nodeIds, ["aside", "end", "shout", "start"]);

    // Paste, then undo it.
    await card("shout").click();
    await page.keyboard.press("Control+c");
    await page.keyboard.press("Control+v");
    await drawn(5);
    await undoKey();
    await drawn(4);
    await saved(id, nodeIds, ["aside", "end", "shout", "start"]);

    // Delete End (and its edges), then undo: all come back; redo deletes them again; the buttons as well.
    await card("end").click();
    await page.keyboard.press("Delete");
    await drawn(3);
    await saved(id, edgesOf, ["start>aside", "start>shout"]);
    await undoKey();
    await drawn(4);
    await saved(id, edgesOf, wired);
    await studio.shot("canvas-undo-delete");
    await page.getByTestId("edit-redo").click();
    await drawn(3);
    await saved(id, nodeIds, ["aside", "shout", "start"]);
    await page.getByTestId("edit-undo").click();
    await drawn(4);
    await saved(id, nodeIds, ["aside", "end", "shout", "start"]);
  }, 180_000);

  it("typing a node's title is one undo step, and a new edit clears what could be redone", async () => {
    const id = await studio.open(flow());
    const page = studio.page;
    await drawn(4);
    await card("shout").click();
    const title = page.getByTestId("field-title");
    await title.fill("");
    await title.pressSequentially("Loud");
    await saved(id, (d) => d.workflow.nodes.find((n) => n.id === "shout")!.title, "Loud");
    // Ctrl+Z inside the field is the field's own; on the canvas it is the editor's.
    await page.locator(".react-flow__pane").click({ position: { x: 10, y: 10 } });
    await undoKey();
    await saved(id, (d) => d.workflow.nodes.find((n) => n.id === "shout")!.title, "Shout");
    expect(await page.getByTestId("edit-redo").isDisabled()).toBe(false);
    await card("end").click();
    await page.keyboard.press("Delete");
    await drawn(3);
    expect(await page.getByTestId("edit-redo").isDisabled()).toBe(true);
  }, 120_000);

  it("+ on a node's output port inserts the picked node after it, wired from that port, overlapping nothing", async () => {
    const wf = flow();
    wf.nodes = wf.nodes.filter((n) => n.id !== "aside");
    wf.edges = wf.edges.filter((e) => e.target !== "aside");
    const id = await studio.open(wf);
    const page = studio.page;
    await drawn(3);
    await card("start").hover();
    await page.getByTestId("port-add-start-source").click();
    await page.getByTestId("palette-search").fill("code");
    await page.getByTestId("palette-item-code").click();
    await drawn(4);
    const added = () => studio.cards().then((cs) => cs.find((c) => !["start", "shout", "end"].includes(c.id))!);
    // Wired from Start's port; the edges already there stay.
    const codeEdge = (d: Draft) => `start>${d.workflow.nodes.find((n) => n.type === "code")?.id}`;
    await saved(id, (d) => edgesOf(d).join(" ") === [codeEdge(d), "shout>end", "start>shout"].sort().join(" "), true);
    const all = { ...wf, nodes: [...wf.nodes, { id: (await added()).id } as Workflow["nodes"][number]] };
    await expect.poll(async () => overlaps(all, await studio.cards()).length, { timeout: 30_000 }).toBe(0);
    const start = await box("start");
    expect((await added()).x).toBeGreaterThan(start.x + start.width);
    await studio.shot("canvas-port-add-branch");

    // On a port with nothing after it, the node goes right of it, on its row.
    await card("end").click();
    await page.keyboard.press("Delete");
    await drawn(3);
    await card("shout").hover();
    await page.getByTestId("port-add-shout-source").click();
    await page.getByTestId("palette-item-template-transform").click();
    await drawn(4);
    const cards = await studio.cards();
    const next = cards.find((c) => !["start", "shout"].includes(c.id) && c.type === "template-transform")!;
    const shout = await box("shout");
    expect(next.x).toBeGreaterThan(shout.x + shout.width);
    expect(Math.abs(next.y - shout.y)).toBeLessThan(2);
    await saved(id, (d) => edgesOf(d).includes(`shout>${next.id}`), true);
    // It starts without errors of its own: its example's `llm.text` reads the app's start value instead.
    const analysed = (await (
      await studio.server.api("/api/analyse", { method: "POST", json: { workflow: (await serverDraft(id)).workflow } })
    ).json()) as {
      diagnostics: Array<{ nodeId?: string; severity: string; message: string }>;
    };
    expect(analysed.diagnostics.filter((d) => d.nodeId === next.id && d.severity === "error")).toEqual([]);
    await studio.shot("canvas-port-add-after");
    // One undo takes the inserted node and its edge back out.
    await undoKey();
    await drawn(3);
    await saved(id, (d) => edgesOf(d).some((e) => e.startsWith("shout>")), false);
  }, 120_000);

  it("raised no page errors", () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
