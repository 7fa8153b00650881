/**
 * One server and one Chromium page signed in to the studio, for canvas tests that open many workflows: each is
 * created through the API and opened by its deep link, and the page reports card rectangles in screen pixels.
 */
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { type Browser, chromium, type Page } from "playwright-core";
import type { Workflow } from "../../src/ir/workflow.js";
import { startTestServer, type TestServer } from "../server/helpers.js";
import { CHROMIUM, CHROMIUM_ARGS } from "./web-build.js";

export const TEST_OUTPUT = join(resolve(import.meta.dirname, "../.."), "test-output");

export interface Rect {
  id: string;
  type: string;
  parentId: string;
  x: number;
  y: number;
  width: number;
  height: number;
}

export interface Studio {
  server: TestServer;
  browser: Browser;
  page: Page;
  pageErrors: string[];
  /** Creates the app and opens it in the editor; resolves once its first view is set. */
  open(wf: Workflow): Promise<string>;
  /** Imports a Dify DSL file as the import dialog does (errors and all) and opens it. */
  openDsl(yaml: string): Promise<string>;
  /** Every card on the canvas, in page pixels. */
  cards(): Promise<Rect[]>;
  /** The canvas area (the part of the page the flow is drawn in). */
  canvasRect(): Promise<{ x: number; y: number; width: number; height: number }>;
  zoom(): Promise<number>;
  /** Clicks Auto-layout and waits for the new layout's first view. */
  autoLayout(): Promise<void>;
  /** Clicks Fit and waits until the view stops moving. */
  fit(): Promise<void>;
  shot(name: string): Promise<void>;
  close(): Promise<void>;
}

export async function openStudio(viewport = { width: 1400, height: 860 }): Promise<Studio> {
  mkdirSync(TEST_OUTPUT, { recursive: true });
  const server = await startTestServer();
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
  const page = await browser.newPage({ viewport });
  page.setDefaultTimeout(30_000);
  const pageErrors: string[] = [];
  page.on("pageerror", (e) => pageErrors.push(e.message));
  await page.goto(server.url);
  await page.getByTestId("api-key").fill(server.key);
  await page.getByTestId("login").click();
  await page.getByTestId("app-list").waitFor();
  let n = 0;
  const transform = () => page.locator(".react-flow__viewport").evaluate((el) => getComputedStyle(el).transform);
  const studio: Studio = {
    server,
    browser,
    page,
    pageErrors,
    async open(wf) {
      const res = await server.api("/api/apps", {
        method: "POST",
        json: { name: `${wf.name || "app"} ${++n}`, mode: wf.mode, workflow: wf },
      });
      if (res.status !== 201) throw new Error(`creating ${wf.name} failed: ${res.status} ${await res.text()}`);
      const id = ((await res.json()) as { app: { id: string } }).app.id;
      await page.goto(`${server.url}/apps/${encodeURIComponent(id)}`);
      await page.locator('.flow-wrap[data-view="ready"]').waitFor();
      return id;
    },
    async openDsl(yaml) {
      const res = await server.api("/api/apps/import", {
        method: "POST",
        body: yaml,
        headers: { "content-type": "text/yaml" },
      });
      if (res.status !== 201 && res.status !== 200)
        throw new Error(`importing failed: ${res.status} ${await res.text()}`);
      const id = ((await res.json()) as { app: { id: string } }).app.id;
      await page.goto(`${server.url}/apps/${encodeURIComponent(id)}`);
      await page.locator('.flow-wrap[data-view="ready"]').waitFor();
      return id;
    },
    cards: () =>
      page.locator(".react-flow__node").evaluateAll((els) =>
        els.map((el) => {
          const r = el.getBoundingClientRect();
          const card = el.querySelector<HTMLElement>(".wf-node");
          return {
            id: el.getAttribute("data-id") ?? "",
            type: card?.dataset.nodeType ?? "",
            parentId: "",
            x: r.x,
            y: r.y,
            width: r.width,
            height: r.height,
          };
        }),
      ),
    async canvasRect() {
      const b = await page.locator(".react-flow").boundingBox();
      if (!b) throw new Error("no canvas on the page");
      return b;
    },
    zoom: async () => Number((await page.getByTestId("zoom").textContent())!.replace("%", "")) / 100,
    async autoLayout() {
      const wrap = page.locator(".flow-wrap");
      const before = await wrap.getAttribute("data-view-nonce");
      await page.getByTestId("auto-layout").click();
      await page.waitForFunction((b) => {
        const el = document.querySelector<HTMLElement>(".flow-wrap");
        return !!el && el.dataset.viewNonce !== b && el.dataset.view === "ready";
      }, before);
    },
    async fit() {
      await page.locator(".react-flow__controls-fitview").click();
      // Settled when two reads a frame apart agree (Fit may animate).
      let last = "";
      for (;;) {
        const now = await transform();
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
        if (now === last && now === (await transform())) return;
        last = now;
      }
    },
    shot: async (name) => {
      await page.screenshot({ path: join(TEST_OUTPUT, `${name}.png`) });
    },
    async close() {
      await browser.close();
      await server.stop();
    },
  };
  return studio;
}

/** Pairs of cards whose rectangles overlap by more than a pixel; a container and its own children do not count. */
export function overlaps(wf: Workflow, drawn: Rect[]): Array<[Rect, Rect]> {
  const parents = new Map(wf.nodes.map((n) => [n.id, n.parentId ?? ""]));
  const cards = drawn.map((c) => ({ ...c, parentId: parents.get(c.id) ?? "" }));
  const out: Array<[Rect, Rect]> = [];
  const ancestor = (a: Rect, b: Rect): boolean => {
    const byId = new Map(cards.map((c) => [c.id, c]));
    for (let p = byId.get(b.parentId), i = 0; p && i < 10; p = byId.get(p.parentId), i++)
      if (p.id === a.id) return true;
    return false;
  };
  for (let i = 0; i < cards.length; i++)
    for (let j = i + 1; j < cards.length; j++) {
      const a = cards[i]!;
      const b = cards[j]!;
      const w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
      const h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
      if (w > 1 && h > 1 && !ancestor(a, b) && !ancestor(b, a)) out.push([a, b]);
    }
  return out;
}

/** Cards not wholly inside the area (a pixel of slack for rounding). */
export function outside(cards: Rect[], area: { x: number; y: number; width: number; height: number }): Rect[] {
  return cards.filter(
    (c) =>
      c.x < area.x - 1 ||
      c.y < area.y - 1 ||
      c.x + c.width > area.x + area.width + 1 ||
      c.y + c.height > area.y + area.height + 1,
  );
}
