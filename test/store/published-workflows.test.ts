// The published workflow is parsed once per stored text and shared (src/store/published-workflows.ts): a publish,
// by this connection or by another process on the same file, is seen by the next read, and the shared object is
// frozen so no reader can change it under the others.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Workflow } from "../../src/ir/workflow.js";
import { openStores } from "../../src/store/open.js";
import { buildWorkflow } from "../support/build.js";

const dir = mkdtempSync(join(tmpdir(), "weft-published-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const echo = (title: string): Workflow =>
  buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "text", type: "text-input", required: true }] },
      { id: "end", type: "end", title, outputs: [{ variable: "out", value_selector: ["start", "text"] }] },
    ],
    edges: [["start", "end"]],
  });
const endTitle = (wf: Workflow | undefined) => wf?.nodes.find((n) => n.id === "end")?.title;

describe("the published workflow, parsed once", () => {
  it("is the same frozen object while the published version stays, and the new one right after a publish", async () => {
    const stores = await openStores(join(dir, "one.db"));
    try {
      const { app } = await stores.apps.createApp({ name: "a", mode: "workflow" }, echo("v1"), "create");
      const first = await stores.apps.published(app.id);
      const again = await stores.apps.published(app.id);
      expect(endTitle(first?.workflow)).toBe("v1");
      expect(again?.workflow).toBe(first?.workflow);
      expect(again).not.toBe(first);
      expect(Object.isFrozen(first?.workflow.nodes[0]?.config)).toBe(true);
      expect(() => {
        (first!.workflow.nodes as unknown[]).push({});
      }).toThrow(TypeError);

      const v2 = await stores.apps.addVersion(app.id, echo("v2"), "edit");
      // Added, not yet published: still version 1.
      expect(endTitle((await stores.apps.published(app.id))?.workflow)).toBe("v1");
      await stores.apps.publish(app.id, v2.version);
      const after = await stores.apps.published(app.id);
      expect(after?.version).toBe(v2.version);
      expect(endTitle(after?.workflow)).toBe("v2");
      // Going back to version 1 is seen too.
      await stores.apps.publish(app.id, 1);
      expect(endTitle((await stores.apps.published(app.id))?.workflow)).toBe("v1");
    } finally {
      await stores.close();
    }
  });

  it("sees a publish made by another connection to the same file (another process: `weft apps publish`)", async () => {
    const path = join(dir, "two.db");
    const server = await openStores(path);
    const cli = await openStores(path);
    try {
      const { app } = await server.apps.createApp({ name: "a", mode: "workflow" }, echo("v1"), "create");
      expect(endTitle((await server.apps.published(app.id))?.workflow)).toBe("v1");
      const v2 = await cli.apps.addVersion(app.id, echo("v2"), "edit");
      await cli.apps.publish(app.id, v2.version);
      expect(endTitle((await server.apps.published(app.id))?.workflow)).toBe("v2");
    } finally {
      await cli.close();
      await server.close();
    }
  });
});
