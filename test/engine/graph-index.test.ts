import { describe, expect, it } from "vitest";
import { GraphIndex } from "../../src/engine/graph.js";
import { runWorkflow } from "../../src/engine/run.js";
import { MemoryRunStore } from "../../src/store/memory/runs.js";
import { buildWorkflow, tpl } from "../support/build.js";

const wf = () =>
  buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "x", type: "text-input" }] },
      tpl("t", "{{ x }}!", { x: ["start", "x"] }),
      { id: "end", type: "end", outputs: [{ variable: "o", value_selector: ["t", "output"] }] },
    ],
    edges: [
      ["start", "t"],
      ["t", "end"],
    ],
  });

describe("the graph index shared by the runs of one workflow", () => {
  it("is built once per workflow object, and again when its node or edge list changed", () => {
    const w = wf();
    const first = GraphIndex.of(w);
    expect(GraphIndex.of(w)).toBe(first);
    w.edges = w.edges.filter((e) => e.target !== "end");
    const after = GraphIndex.of(w);
    expect(after).not.toBe(first);
    expect(after.in.get("end")).toBeUndefined();
    w.nodes.push({ ...w.nodes[1]!, id: "t2" });
    expect(GraphIndex.of(w).byId.has("t2")).toBe(true);
  });

  it("runs of one workflow object each get their own results", async () => {
    const w = wf();
    const [a, b] = await Promise.all([runWorkflow(w, { inputs: { x: "a" } }), runWorkflow(w, { inputs: { x: "b" } })]);
    expect([a.outputs.o, b.outputs.o]).toEqual(["a!", "b!"]);
  });
});

describe("a memory store keeping workflows by reference", () => {
  it("stores the workflow without a copy and still hands out copies", async () => {
    const store = new MemoryRunStore({ workflowsByReference: true });
    const w = wf();
    const run = {
      id: "r1",
      workflow: w,
      inputs: { x: { deep: 1 } },
      status: "running" as const,
      createdAt: 1,
      updatedAt: 1,
    };
    await store.createRun(run);
    run.inputs.x.deep = 2;
    const got = await store.getRun("r1");
    expect(got?.inputs).toEqual({ x: { deep: 1 } });
    expect(got?.workflow).toEqual(w);
    expect(got?.workflow).not.toBe(w);
  });
});

describe("the engine's own one-run store", () => {
  it("hands back the trace it stored, as copies of what the engine passed", async () => {
    const store = new MemoryRunStore({ engineOwned: true });
    const w = wf();
    await store.createRun({ id: "r1", workflow: w, inputs: {}, status: "running", createdAt: 1, updatedAt: 1 });
    const rec = {
      runId: "r1",
      key: "a",
      nodeId: "a",
      nodeType: "template-transform",
      title: "a",
      attempt: 1,
      status: "succeeded" as const,
      inputs: { x: { deep: 1 } },
      startedAt: 1,
      endedAt: 2,
    };
    await store.commitNode("r1", { key: "a", nodeId: "a", status: "succeeded", outputs: { o: 1 } }, rec);
    rec.inputs.x.deep = 2;
    const trace = await store.attempts("r1");
    expect(trace).toHaveLength(1);
    expect(trace[0]?.inputs).toEqual({ x: { deep: 1 } });
    expect((await store.getRun("r1"))?.workflow).toEqual(w);
    expect((await store.committed("r1")).get("a")?.outputs).toEqual({ o: 1 });
  });
});
