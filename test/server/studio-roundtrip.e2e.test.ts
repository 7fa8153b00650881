/**
 * Issue 36 item 7 in Chromium: a Dify app opened in the studio, a node moved and kept as a version, exported with
 * the Export button and imported back with the Import dialog, records no version and warns of no older DSL
 * version (before, the re-import warned "0.5.0 is older than 0.6.0" and recorded a version changing canvas.type).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openStudio, type Studio, TEST_OUTPUT } from "../support/studio-browser.js";
import { CHROMIUM } from "../support/web-build.js";
import { corpusFile } from "./helpers.js";

const ITERATION = corpusFile("svcvit__Awesome-Dify-Workflow/DSL/Claude3 Code Translation.yml");

describe.skipIf(!existsSync(CHROMIUM))("studio: export and re-import round trip", () => {
  let studio: Studio;
  beforeAll(async () => {
    studio = await openStudio();
  }, 240_000);
  afterAll(async () => {
    await studio?.close();
  });

  it("our export, imported back in the studio, is 'no change': no new version, no DSL-version warning", async () => {
    const page = studio.page;
    const id = await studio.openDsl(readFileSync(ITERATION, "utf8"));
    const versions = async () =>
      ((await (await studio.server.api(`/api/apps/${id}/versions`)).json()) as { versions: unknown[] }).versions.length;
    // A node moved in the studio and kept as a version: positions the studio wrote are part of what is exported.
    const node = page
      .locator('.react-flow__node:not([data-id*="start"]) .wf-node:not(.wf-container) .wf-node-head')
      .first();
    const h = (await node.boundingBox())!;
    await page.mouse.move(h.x + 10, h.y + h.height / 2);
    await page.mouse.down();
    for (let i = 1; i <= 4; i++) await page.mouse.move(h.x + 10, h.y + h.height / 2 + i * 20);
    await page.mouse.up();
    await expect.poll(() => page.getByTestId("save").isDisabled(), { timeout: 30_000 }).toBe(false);
    await page.getByTestId("save").click();
    await expect.poll(versions, { timeout: 30_000 }).toBe(2);

    const [download] = await Promise.all([page.waitForEvent("download"), page.getByTestId("export").click()]);
    const file = join(TEST_OUTPUT, "studio-roundtrip-export.yml");
    await download.saveAs(file);
    expect(readFileSync(file, "utf8")).toMatch(/^version: '?0\.6\.0'?$/m);

    await page.getByTestId("import-version").click();
    await page.getByTestId("import-file").setInputFiles(file);
    // A clean import opens at once; one with warnings or diagnostics shows its report first.
    const noChange = page.getByText(/no change: the file is version 2 as it is/);
    await noChange.or(page.getByTestId("import-report")).waitFor();
    if (await page.getByTestId("import-report").isVisible()) {
      const warnings = await page.getByTestId("import-warning").allTextContents();
      expect(warnings.filter((w) => /older|DSL version/i.test(w))).toEqual([]);
      await studio.shot("studio-roundtrip-report");
      await page.getByTestId("import-open").click();
    }
    await noChange.waitFor();
    await studio.shot("studio-roundtrip-import");
    expect(await versions()).toBe(2);
  }, 180_000);

  it("raised no page errors", () => {
    expect(studio.pageErrors).toEqual([]);
  });
});
