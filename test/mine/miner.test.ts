import { describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import {
  buildWorkflow,
  dfgEdges,
  discoverDfg,
  filterDfg,
  inductiveMiner,
  MineError,
  mineWorkflow,
  skeletonFromTree,
  toEventLog,
  treeToString,
} from "../../src/mine/index.js";
import { nodeCatalogue } from "../../src/nodes/index.js";

const traces = (...ts: string[]) => ts.map((t) => t.split(""));
const mined = (...ts: string[]) => treeToString(inductiveMiner(traces(...ts)));

describe("directly-follows graph", () => {
  it("counts directly-follows pairs, start and end activities, weighted by variant", () => {
    const log = toEventLog(traces("abc", "abc", "ac"));
    expect(log).toEqual([
      { trace: ["a", "b", "c"], count: 2 },
      { trace: ["a", "c"], count: 1 },
    ]);
    const dfg = discoverDfg(log);
    expect(dfgEdges(dfg)).toEqual([
      ["a", "b", 2],
      ["a", "c", 1],
      ["b", "c", 2],
    ]);
    expect([...dfg.start]).toEqual([["a", 3]]);
    expect([...dfg.end]).toEqual([["c", 3]]);
  });

  it("filters rare edges by count and by the IMf noise rule", () => {
    const dfg = discoverDfg(toEventLog(traces(...Array(9).fill("abc"), "acb")));
    expect(dfgEdges(filterDfg(dfg, { minCount: 2 }))).toEqual([
      ["a", "b", 9],
      ["b", "c", 9],
    ]);
    // a→c (1) is below 0.2 × a's strongest outgoing edge (9); c→b (1) against c's end count (9).
    expect(dfgEdges(filterDfg(dfg, { noise: 0.2 }))).toEqual([
      ["a", "b", 9],
      ["b", "c", 9],
    ]);
    expect(() => filterDfg(dfg, { noise: 2 })).toThrow(MineError);
  });
});

describe("inductive miner recovers known processes", () => {
  it("sequence", () => expect(mined("abc", "abc")).toBe("->('a', 'b', 'c')"));
  it("exclusive choice", () => expect(mined("abd", "acd")).toBe("->('a', X('b', 'c'), 'd')"));
  it("optional step (choice with tau)", () => expect(mined("ac", "abc")).toBe("->('a', X(tau, 'b'), 'c')"));
  it("parallel", () => expect(mined("abcd", "acbd")).toBe("->('a', +('b', 'c'), 'd')"));
  it("loop with a redo part", () => expect(mined("abd", "abcbd", "abcbcbd")).toBe("->('a', *('b', 'c'), 'd')"));
  it("loop with alternative redo parts", () =>
    expect(mined("abd", "abcbd", "abebd", "abcbebd")).toBe("->('a', *('b', X('c', 'e')), 'd')"));
  it("loop back over a sequence (tau redo)", () => expect(mined("abc", "abcbc")).toBe("->('a', *(->('b', 'c'), tau))"));
  it("self loop", () => expect(mined("a", "aa", "aaa")).toBe("*('a', tau)"));
  it("nested choice of a parallel block", () =>
    expect(mined("abcd", "acbd", "aed")).toBe("->('a', X('e', +('b', 'c')), 'd')"));
  it("disconnected traces are a top-level choice", () =>
    expect(mined("ab", "cd")).toBe("X(->('a', 'b'), ->('c', 'd'))"));
  it("empty traces make the whole process optional", () => expect(mined("", "ab")).toBe("X(tau, ->('a', 'b'))"));
  it("falls through when no cut applies (activity once per trace, tau loops)", () => {
    expect(mined(...Array(20).fill("abc"), "cab")).toBe("+('a', 'b', 'c')");
    expect(mined("abc", "abcab", "ab")).toBe("*(->('a', 'b', X(tau, 'c')), tau)");
  });

  it("IMf drops infrequent behaviour that IM keeps", () => {
    const log = traces(...Array(20).fill("abc"), "cab");
    expect(treeToString(inductiveMiner(log))).toBe("+('a', 'b', 'c')");
    expect(treeToString(inductiveMiner(log, { noise: 0.2 }))).toBe("->('a', 'b', 'c')");
  });

  it("rejects an empty log and bad thresholds", () => {
    expect(() => inductiveMiner([])).toThrow(expect.objectContaining({ code: "mine.log_empty" }));
    expect(() => inductiveMiner(traces("a"), { noise: -1 })).toThrow(
      expect.objectContaining({ code: "mine.invalid_option" }),
    );
  });
});

describe("skeleton and workflow", () => {
  const model = { provider: "openai", name: "executor" };
  const recs = (...ts: string[]) =>
    ts.map((t, i) => ({
      id: `r${i}`,
      query: `task ${i}`,
      reference: "",
      calls: t.split("").map((tool) => ({ tool, arguments: {} })),
    }));

  it("maps sequence, choice, parallel and loop to tool-calling positions", () => {
    const sk = skeletonFromTree(inductiveMiner(traces("abd", "abcbd")));
    expect(sk).toEqual({
      kind: "seq",
      items: [
        { kind: "call", tools: ["a"] },
        {
          kind: "retry",
          body: {
            kind: "seq",
            items: [
              { kind: "call", tools: ["b"] },
              { kind: "call", tools: ["c"] },
            ],
          },
        },
        { kind: "call", tools: ["d"] },
      ],
    });
    expect(skeletonFromTree(inductiveMiner(traces("ab", "ba", "aab")))).toMatchObject({ kind: "parallel" });
  });

  it("builds start → plan → positions → synthesis → end, and the analyser accepts every shape", () => {
    for (const log of [
      ["abc"],
      ["abd", "acd"],
      ["abcd", "acbd"],
      ["abd", "abcbd"],
      ["ac", "abc"],
      ["a", "aa"],
      ["abcd", "acbd", "aed"],
      ["ab", "cd"],
    ]) {
      const r = mineWorkflow(recs(...log), { model });
      expect(
        r.diagnostics.filter((d) => d.severity === "error"),
        log.join(","),
      ).toEqual([]);
      expect(analyse(r.workflow, nodeCatalogue).diagnostics.filter((d) => d.severity !== "info")).toEqual([]);
      const types = r.workflow.nodes.map((n) => n.type);
      expect(types.filter((t) => t === "start")).toHaveLength(1);
      expect(types).toContain("end");
      expect(r.workflow.nodes.find((n) => n.id === "plan")?.type).toBe("llm");
      expect(r.workflow.nodes.find((n) => n.id === "synth")?.type).toBe("llm");
    }
  });

  it("turns a choice into if-else branches on the plan joined by a variable-aggregator", () => {
    const wf = mineWorkflow(recs("abd", "acd"), { model }).workflow;
    const ie = wf.nodes.find((n) => n.type === "if-else")!;
    expect((ie.config as any).cases).toEqual([
      {
        case_id: "c1",
        logical_operator: "and",
        conditions: [{ variable_selector: ["plan", "text"], comparison_operator: "contains", value: "b" }],
      },
    ]);
    const ports = wf.edges
      .filter((e) => e.source === ie.id)
      .map((e) => e.sourcePort)
      .sort();
    expect(ports).toEqual(["c1", "false"]);
    const merge = wf.nodes.find((n) => n.type === "variable-aggregator")!;
    expect((merge.config as any).variables).toHaveLength(2);
  });

  it("turns a parallel block into a fan-out joined at the next node, and a loop into a loop container", () => {
    const par = mineWorkflow(recs("abcd", "acbd"), { model }).workflow;
    const d = par.nodes.find((n) => n.type === "tool-call" && (n.config as any).candidates[0] === "d")!;
    expect(par.edges.filter((e) => e.target === d.id)).toHaveLength(2);
    const loop = mineWorkflow(recs("abd", "abcbd"), { model }).workflow;
    const container = loop.nodes.find((n) => n.type === "loop")!;
    const inside = loop.nodes.filter((n) => n.parentId === container.id).map((n) => n.type);
    expect(inside.sort()).toEqual(["assigner", "loop-start", "tool-call", "tool-call"]);
  });

  it("an empty skeleton still gives a valid plan → synthesis workflow", () => {
    const wf = buildWorkflow(null, { model });
    expect(wf.nodes.map((n) => n.id)).toEqual(["start", "plan", "synth", "end"]);
    expect(analyse(wf, nodeCatalogue).diagnostics.filter((x) => x.severity === "error")).toEqual([]);
  });
});
