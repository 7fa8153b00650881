import { describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { MemoryRunStore } from "../../src/store/memory/runs.js";
import { oneTemplateChain } from "../support/build.js";

const chain = oneTemplateChain();

// A queue worker replies with status and outputs only: reading the run's attempts back at its end was a store
// round trip per queued run for nothing (issue 33).
describe("readTrace: false", () => {
  it("leaves the result's trace empty without reading the store; the attempts are stored all the same", async () => {
    const store = new MemoryRunStore();
    let reads = 0;
    const attempts = store.attempts.bind(store);
    store.attempts = (runId: string) => {
      reads++;
      return attempts(runId);
    };
    const r = await runWorkflow(chain, { store, inputs: { n: "1" }, readTrace: false });
    expect(r).toMatchObject({ status: "succeeded", outputs: { out: "a1" }, trace: [] });
    expect(reads).toBe(0);
    expect((await store.attempts(r.runId)).map((a) => a.nodeId)).toEqual(["start", "a", "end"]);
    const traced = await runWorkflow(chain, { store, inputs: { n: "2" } });
    expect(traced.trace.map((a) => a.nodeId)).toEqual(["start", "a", "end"]);
  });
});
