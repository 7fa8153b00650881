import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow } from "../support/build.js";
import { withSleepNode } from "../support/test-nodes.js";
import { readSse, startTestServer, type TestServer } from "./helpers.js";

let s: TestServer;
beforeAll(async () => {
  s = await startTestServer({ flushMs: 20, nodeTypes: withSleepNode });
});
afterAll(async () => s.stop());

const slow = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [] },
    { id: "sleep", type: "test-sleep", ms: 1500 },
    { id: "end", type: "end", outputs: [] },
  ],
  edges: [
    ["start", "sleep"],
    ["sleep", "end"],
  ],
});

describe("a run in progress", () => {
  it("has its events in the database before it ends, streams them to a client, and accepts a cancel", async () => {
    const created = await s.api("/api/apps", { method: "POST", json: { name: "Slow", workflow: slow } });
    expect(created.status).toBe(201);
    const appId = ((await created.json()) as any).app.id;
    const { runId } = (await (
      await s.api(`/api/apps/${appId}/runs`, { method: "POST", json: { inputs: {} } })
    ).json()) as any;

    await expect
      .poll(
        async () =>
          (await s.deps.apps.events(runId)).map((e) => (e.type === "node_started" ? `${e.type}:${e.nodeId}` : e.type)),
        { timeout: 5000 },
      )
      .toContain("node_started:sleep");
    expect(s.deps.hub.isActive(runId)).toBe(true);
    expect(((await (await s.api(`/api/runs/${runId}`)).json()) as any).active).toBe(true);

    const streamed = readSse(await s.api(`/api/runs/${runId}/events`));
    const cancel = await s.api(`/api/runs/${runId}/cancel`, { method: "POST" });
    expect(cancel.status).toBe(202);
    const events = await streamed;
    expect(events[0]!.data.type).toBe("run_started");
    // The abort reaches the running node's signal; this test node ignores it, so the run still ends normally.
    expect(events.at(-1)!.data.type).toBe("run_finished");
    expect(events.map((e) => e.data.type)).toContain("node_finished");
    // Once finished, the stored log is the whole stream.
    expect(await s.deps.apps.events(runId)).toEqual(events.map((e) => e.data));
  });
});
