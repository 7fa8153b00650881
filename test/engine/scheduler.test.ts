import { describe, expect, it } from "vitest";
import { runWorkflow } from "../../src/engine/run.js";
import { MemoryRunStore } from "../../src/store/memory/runs.js";
import type { RunEvent } from "../../src/store/run-events.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { sleepStats, withSleepNode } from "../support/test-nodes.js";

const start = (vars: Array<Record<string, unknown>> = [{ variable: "x", type: "text-input" }]) => ({
  id: "start",
  type: "start",
  variables: vars,
});
const end = (outputs: Record<string, string[]>) => ({
  id: "end",
  type: "end",
  outputs: Object.entries(outputs).map(([variable, value_selector]) => ({ variable, value_selector })),
});

describe("scheduler", () => {
  it("runs a chain and returns end outputs", async () => {
    const wf = buildWorkflow({
      nodes: [start(), tpl("t1", "<{{ x }}>", { x: ["start", "x"] }), end({ out: ["t1", "output"] })],
      edges: [
        ["start", "t1"],
        ["t1", "end"],
      ],
    });
    const r = await runWorkflow(wf, { inputs: { x: "hi" } });
    expect(r.status).toBe("succeeded");
    expect(r.outputs).toEqual({ out: "<hi>" });
    expect(r.trace.map((t) => t.nodeId)).toEqual(["start", "t1", "end"]);
    expect(r.trace[1]!.inputs).toEqual({ "start.x": "hi" });
  });

  it("skips the untaken branch and the aggregator picks the branch that ran", async () => {
    const wf = buildWorkflow({
      nodes: [
        start(),
        {
          id: "if",
          type: "if-else",
          cases: [
            {
              case_id: "true",
              logical_operator: "and",
              conditions: [{ variable_selector: ["start", "x"], comparison_operator: "contains", value: "yes" }],
            },
          ],
        },
        tpl("a", "A:{{ x }}", { x: ["start", "x"] }),
        tpl("b", "B:{{ x }}", { x: ["start", "x"] }),
        tpl("a2", "after a"),
        {
          id: "agg",
          type: "variable-aggregator",
          output_type: "string",
          variables: [
            ["a", "output"],
            ["b", "output"],
          ],
        },
        end({ out: ["agg", "output"] }),
      ],
      edges: [
        ["start", "if"],
        ["if", "true", "a"],
        ["if", "false", "b"],
        ["a", "a2"],
        ["a2", "agg"],
        ["b", "agg"],
        ["agg", "end"],
      ],
    });
    const events: RunEvent[] = [];
    const yes = await runWorkflow(wf, { inputs: { x: "yes please" }, onEvent: (e) => events.push(e) });
    expect(yes.outputs).toEqual({ out: "A:yes please" });
    expect(events.filter((e) => e.type === "node_skipped").map((e) => (e as { nodeId: string }).nodeId)).toEqual(["b"]);
    const no = await runWorkflow(wf, { inputs: { x: "no" } });
    expect(no.outputs).toEqual({ out: "B:no" });
    expect(no.trace.map((t) => t.nodeId)).not.toContain("a2");
    // the join ran exactly once
    expect(no.trace.filter((t) => t.nodeId === "agg")).toHaveLength(1);
  });

  it("runs independent branches concurrently and joins once", async () => {
    const wf = buildWorkflow({
      nodes: [
        start(),
        { id: "p1", type: "test-sleep", ms: 60 },
        { id: "p2", type: "test-sleep", ms: 60 },
        { id: "p3", type: "test-sleep", ms: 60 },
        tpl("join", "{{a}}{{b}}{{c}}", { a: ["p1", "done"], b: ["p2", "done"], c: ["p3", "done"] }),
        end({ out: ["join", "output"] }),
      ],
      edges: [
        ["start", "p1"],
        ["start", "p2"],
        ["start", "p3"],
        ["p1", "join"],
        ["p2", "join"],
        ["p3", "join"],
        ["join", "end"],
      ],
    });
    const r = await runWorkflow(wf, { concurrency: 4, nodeTypes: withSleepNode });
    expect(r.status).toBe("succeeded");
    expect(r.trace.filter((t) => t.nodeId === "join")).toHaveLength(1);
    expect(sleepStats.peakOf(r.runId)).toBe(3);
    const one = await runWorkflow(wf, { concurrency: 1, nodeTypes: withSleepNode });
    expect(sleepStats.peakOf(one.runId)).toBe(1);
    // A node waiting for a slot gets the one a finished node hands on: all three run, never more than two at once.
    const two = await runWorkflow(wf, { concurrency: 2, nodeTypes: withSleepNode });
    expect(two.status).toBe("succeeded");
    expect(two.trace.filter((t) => /^p\d$/.test(t.nodeId))).toHaveLength(3);
    expect(sleepStats.peakOf(two.runId)).toBe(2);
  });

  it("counts one run's overlapping sleepers, whatever a sleeper another run left behind is doing", async () => {
    // A node past its timeout_seconds sleeps on after its run failed: the process-wide count sees it.
    const stray = buildWorkflow({
      nodes: [start(), { id: "slow", type: "test-sleep", ms: 400, timeout_seconds: 0.05 }, end({})],
      edges: [
        ["start", "slow"],
        ["slow", "end"],
      ],
    });
    const left = await runWorkflow(stray, { nodeTypes: withSleepNode });
    expect(left.error?.code).toBe("node.timeout");
    const wf = buildWorkflow({
      nodes: [start(), { id: "p1", type: "test-sleep", ms: 20 }, { id: "p2", type: "test-sleep", ms: 20 }, end({})],
      edges: [
        ["start", "p1"],
        ["start", "p2"],
        ["p1", "end"],
        ["p2", "end"],
      ],
    });
    const r = await runWorkflow(wf, { concurrency: 1, nodeTypes: withSleepNode });
    expect(sleepStats.peakOf(r.runId)).toBe(1);
  });

  it("fails the run with the node named when a node fails without a strategy", async () => {
    const wf = buildWorkflow({
      nodes: [start(), tpl("bad", "{{ x | nosuchfilter }}", { x: ["start", "x"] }), end({ out: ["bad", "output"] })],
      edges: [
        ["start", "bad"],
        ["bad", "end"],
      ],
    });
    const r = await runWorkflow(wf, { inputs: { x: "1" } });
    expect(r.status).toBe("failed");
    expect(r.error?.nodeId).toBe("bad");
    expect(r.error?.code).toMatch(/^jinja\./);
  });

  it("default-value strategy emits defaults and the run is partial-succeeded", async () => {
    const wf = buildWorkflow({
      nodes: [
        start(),
        tpl(
          "bad",
          "{{ x | nosuchfilter }}",
          { x: ["start", "x"] },
          { error_strategy: "default-value", default_value: [{ key: "output", type: "string", value: "fallback" }] },
        ),
        end({ out: ["bad", "output"], err: ["bad", "error_type"] }),
      ],
      edges: [
        ["start", "bad"],
        ["bad", "end"],
      ],
    });
    const r = await runWorkflow(wf, { inputs: { x: "1" } });
    expect(r.status).toBe("partial-succeeded");
    expect(r.outputs.out).toBe("fallback");
    expect(String(r.outputs.err)).toMatch(/^jinja\./);
  });

  it("fail-branch routes to the fail-branch port on error and to source on success", async () => {
    const mk = (template: string) =>
      buildWorkflow({
        nodes: [
          start(),
          tpl("risky", template, { x: ["start", "x"] }, { error_strategy: "fail-branch" }),
          tpl("ok", "ok:{{ v }}", { v: ["risky", "output"] }),
          tpl("handler", "handled:{{ m }}", { m: ["risky", "error_type"] }),
          {
            id: "agg",
            type: "variable-aggregator",
            variables: [
              ["ok", "output"],
              ["handler", "output"],
            ],
          },
          end({ out: ["agg", "output"] }),
        ],
        edges: [
          ["start", "risky"],
          ["risky", "source", "ok"],
          ["risky", "fail-branch", "handler"],
          ["ok", "agg"],
          ["handler", "agg"],
          ["agg", "end"],
        ],
      });
    const bad = await runWorkflow(mk("{{ x | nosuchfilter }}"), { inputs: { x: "1" } });
    expect(bad.outputs.out).toMatch(/^handled:jinja\./);
    expect(bad.status).toBe("partial-succeeded");
    const good = await runWorkflow(mk("{{ x }}"), { inputs: { x: "1" } });
    expect(good.outputs.out).toBe("ok:1");
    expect(good.status).toBe("succeeded");
  });

  it("retries a failing node up to max_retries with the interval", async () => {
    let calls = 0;
    const flaky = {
      invoke: async () => {
        calls++;
        if (calls < 3) throw new Error("transient");
        return { text: "done", files: [], json: [] };
      },
    };
    const { nodeCatalogue } = await import("../../src/nodes/index.js");
    const { z } = await import("zod");
    const nodeTypes = nodeCatalogue.with({
      type: "test-flaky",
      label: "flaky",
      category: "tool",
      purpose: "test",
      configSchema: z.object({}).loose(),
      outputs: () => [{ name: "text", type: "string" }],
      inputs: () => [],
      ports: () => ["source"],
      async execute(ctx) {
        const r = await ctx.services.tools!.invoke({ providerId: "x", toolName: "y", parameters: {} });
        return { outputs: { text: r.text } };
      },
    });
    const wf = buildWorkflow({
      nodes: [
        start([]),
        { id: "f", type: "test-flaky", retry_config: { retry_enabled: true, max_retries: 3, retry_interval: 10 } },
        end({ out: ["f", "text"] }),
      ],
      edges: [
        ["start", "f"],
        ["f", "end"],
      ],
    });
    const t0 = Date.now();
    const r = await runWorkflow(wf, { services: { tools: flaky }, nodeTypes });
    expect(r.outputs.out).toBe("done");
    expect(calls).toBe(3);
    expect(r.trace.filter((t) => t.nodeId === "f").map((t) => t.status)).toEqual(["failed", "failed", "succeeded"]);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(20);
    calls = -10;
    const r2 = await runWorkflow(wf, { services: { tools: flaky }, nodeTypes });
    expect(r2.status).toBe("failed");
    expect(r2.trace.filter((t) => t.nodeId === "f")).toHaveLength(4);
  });

  it("gates reject an output and retry the node with feedback", async () => {
    const wf = buildWorkflow({
      nodes: [
        start(),
        tpl("g", "{{ x }}", { x: ["start", "x"] }, { gates: [{ output: "output", check: "regex", value: "^\\d+$" }] }),
        end({ out: ["g", "output"] }),
      ],
      edges: [
        ["start", "g"],
        ["g", "end"],
      ],
    });
    const r = await runWorkflow(wf, { inputs: { x: "abc" } });
    expect(r.status).toBe("failed");
    expect(r.error?.code).toBe("gate.failed");
    expect(r.trace.filter((t) => t.status === "gate-rejected")).toHaveLength(3);
    const ok = await runWorkflow(wf, { inputs: { x: "42" } });
    expect(ok.outputs.out).toBe("42");
  });
});

describe("cancellation", () => {
  it("an aborted run starts no further nodes and fails as cancelled", async () => {
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        { id: "s1", type: "test-sleep", ms: 80 },
        { id: "s2", type: "test-sleep", ms: 80 },
        { id: "end", type: "end", outputs: [] },
      ],
      edges: [
        ["start", "s1"],
        ["s1", "s2"],
        ["s2", "end"],
      ],
    });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 30);
    const r = await runWorkflow(wf, { signal: ac.signal, nodeTypes: withSleepNode });
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ code: "run.cancelled", nodeId: "s2" });
    expect(r.trace.map((t) => t.nodeId)).toEqual(["start", "s1"]);
  });
});

describe("store writes per node", () => {
  it("a succeeded node is one store write: its commit carrying its attempt, no separate trace append", async () => {
    const calls: string[] = [];
    class CountingStore extends MemoryRunStore {
      override async commitNode(...a: Parameters<MemoryRunStore["commitNode"]>) {
        calls.push(`commit ${a[1].key}${a[2] ? " +attempt" : ""}`);
        return super.commitNode(...a);
      }
      override async appendAttempt(...a: Parameters<MemoryRunStore["appendAttempt"]>) {
        calls.push(`attempt ${a[0].key}`);
        return super.appendAttempt(...a);
      }
    }
    const store = new CountingStore();
    const wf = buildWorkflow({
      nodes: [start(), tpl("t1", "<{{ x }}>", { x: ["start", "x"] }), end({ out: ["t1", "output"] })],
      edges: [
        ["start", "t1"],
        ["t1", "end"],
      ],
    });
    const r = await runWorkflow(wf, { inputs: { x: "hi" }, store });
    expect(r.status).toBe("succeeded");
    expect(calls).toEqual(["commit start +attempt", "commit t1 +attempt", "commit end +attempt"]);
    expect((await store.attempts(r.runId)).map((a) => a.nodeId)).toEqual(["start", "t1", "end"]);
  });

  it("the default concurrency runs a 16-wide fan-out all at once; a bad concurrency is a typed error", async () => {
    const nodes: Array<Record<string, unknown> & { id: string; type: string }> = [start([])];
    const edges: Array<[string, string]> = [];
    for (let i = 0; i < 16; i++) {
      nodes.push({ id: `s${i}`, type: "test-sleep", ms: 50 });
      edges.push(["start", `s${i}`], [`s${i}`, "end"]);
    }
    nodes.push(end({}));
    const wf = buildWorkflow({ nodes, edges });
    const r = await runWorkflow(wf, { nodeTypes: withSleepNode });
    expect(r.status).toBe("succeeded");
    expect(sleepStats.peakOf(r.runId)).toBe(16);
    await expect(runWorkflow(wf, { concurrency: 0, nodeTypes: withSleepNode })).rejects.toMatchObject({
      code: "run.bad_concurrency",
    });
  });
});
