/**
 * Every corpus workflow opened in the studio in Chromium: after Fit each card of a workflow of at most 60 nodes is
 * inside the canvas, and no two cards overlap when opened nor after Auto-layout. `npm test` opens a fixed sample
 * (every 8th file plus the largest); WEFT_CANVAS_ALL=1 opens all of them (4–8 minutes on a loaded 2-core machine),
 * WEFT_CANVAS_FILES=a.yml,b.yml only those.
 */
import { existsSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { importDify } from "../../src/dsl/dify/index.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { corpusFiles, readCorpus } from "../dsl/corpus.js";
import { openStudio, outside, overlaps, type Studio } from "../support/studio-browser.js";
import { CHROMIUM } from "../support/web-build.js";

const ALL = process.env.WEFT_CANVAS_ALL === "1";
/** A comma-separated list of corpus paths to open instead (to look into one workflow). */
const ONLY = process.env.WEFT_CANVAS_FILES?.split(",").filter(Boolean);
const FIT_LIMIT = 60;

function chosen(): Array<{ file: string; wf: Workflow; yaml: string }> {
  const all = corpusFiles().map((file) => {
    const yaml = readCorpus(file);
    return { file, yaml, wf: importDify(yaml).workflow };
  });
  if (ONLY) return all.filter((a) => ONLY.includes(a.file));
  if (ALL) return all;
  const largest = [...all].sort((a, b) => b.wf.nodes.length - a.wf.nodes.length)[0]!;
  return [...all.filter((_, i) => i % 8 === 0), ...(all.indexOf(largest) % 8 === 0 ? [] : [largest])];
}

describe.skipIf(!existsSync(CHROMIUM))("corpus workflows on the canvas", () => {
  let studio: Studio;
  beforeAll(async () => {
    studio = await openStudio();
  }, 240_000);
  afterAll(async () => {
    await studio?.close();
  });

  it(`fit shows every card of workflows up to ${FIT_LIMIT} nodes, and no cards overlap (opened, auto-laid-out)`, {
    timeout: 900_000,
  }, async () => {
    const apps = chosen();
    const problems: string[] = [];
    const tally = { workflows: 0, fitChecked: 0, notFitting: 0, overlapsOpened: 0, overlapsLaidOut: 0, nodes: 0 };
    const t0 = Date.now();
    for (const { file, wf, yaml } of apps) {
      await studio.openDsl(yaml);
      const page = studio.page;
      // One card per id: a file that repeats an id (one corpus file does) has one card for it.
      const ids = new Set(wf.nodes.map((n) => n.id)).size;
      await expect.poll(() => page.locator(".react-flow__node").count(), { message: file, timeout: 30_000 }).toBe(ids);
      tally.workflows++;
      tally.nodes += wf.nodes.length;
      const opened = overlaps(wf, await studio.cards());
      tally.overlapsOpened += opened.length;
      if (opened.length)
        problems.push(`${file}: ${opened.length} overlaps opened, e.g. ${opened[0]![0].id} × ${opened[0]![1].id}`);
      if (wf.nodes.length <= FIT_LIMIT) {
        await studio.fit();
        const out = outside(await studio.cards(), await studio.canvasRect());
        tally.fitChecked++;
        if (out.length) {
          tally.notFitting++;
          problems.push(
            `${file}: ${out.length}/${wf.nodes.length} cards outside the canvas after Fit at ${await studio.zoom()}`,
          );
        }
      }
      await studio.autoLayout();
      const laid = overlaps(wf, await studio.cards());
      tally.overlapsLaidOut += laid.length;
      if (laid.length)
        problems.push(`${file}: ${laid.length} overlaps after auto-layout, e.g. ${laid[0]![0].id} × ${laid[0]![1].id}`);
    }
    console.log(
      `canvas corpus: ${JSON.stringify(tally)} in ${Math.round((Date.now() - t0) / 1000)} s${problems.length ? `\n${problems.join("\n")}` : ""}`,
    );
    expect(studio.pageErrors).toEqual([]);
    expect(problems).toEqual([]);
    expect(tally.workflows).toBe(apps.length);
    if (ALL) expect(tally.workflows).toBeGreaterThanOrEqual(163);
  });
});
