/**
 * The 368 staged WorfEval reference vectors (upstream evaluator run under networkx 3.6.1 with the
 * bow_cosine_v1 stand-in similarity). mode "upstream" must reproduce every number, tied cases included
 * (the nx-blossom matcher follows networkx's tie-breaking).
 */
import { describe, expect, it } from "vitest";
import { matchNodes } from "../../src/eval/metrics/matching.js";
import { bowCosineV1, similarityMatrix } from "../../src/eval/metrics/similarity.js";
import { topologicalOrdersNx } from "../../src/eval/metrics/topo.js";
import { parseWorfbenchText, type WorfGraph } from "../../src/eval/metrics/worf-graph.js";
import { aggregateWorf, evaluateWorf, scoreWorfPair, type WorfPairScore } from "../../src/eval/metrics/worfeval.js";
import { readCorpusJson } from "./corpus.js";

interface PRFx {
  precision: number;
  recall: number;
  f1_score: number;
}
interface Case {
  case_id: string;
  perturbation: string;
  gold_text: string;
  pred_text: string;
  gold_graph: WorfGraph;
  pred_graph: WorfGraph | [];
  sim_matrix_full?: number[][];
  has_exact_ties_above_threshold?: boolean;
  expected: {
    chain: PRFx | { error: string } | null;
    graph: PRFx | null;
    graph_mapping_pred_to_gold?: Record<string, number>;
    gold_chain_orders_used?: string[][];
    gold_chain_orders_used_idx?: number[][];
  };
}

const data = readCorpusJson<{ cases: Case[] }>("worfbench/worfeval_reference_vectors.json");
const cases = data.cases;
const scored = cases.filter((c) => c.sim_matrix_full);

describe("WorfEval reference vectors (upstream mode)", () => {
  it("has the 368 staged cases, 73 with ties", () => {
    expect(cases).toHaveLength(368);
    expect(cases.filter((c) => c.has_exact_ties_above_threshold)).toHaveLength(73);
  });

  it("parser reproduces every stored gold and pred graph", () => {
    for (const c of cases) {
      expect(parseWorfbenchText(c.gold_text), c.case_id).toEqual(c.gold_graph);
      const p = parseWorfbenchText(c.pred_text);
      if (Array.isArray(c.pred_graph)) expect(p, c.case_id).toBeNull();
      else expect(p, c.case_id).toEqual(c.pred_graph);
    }
  });

  it("bow_cosine_v1 recomputed from text equals the stored matrices (stored values are rounded to 12 places)", async () => {
    for (const c of scored) {
      const pg = c.pred_graph as WorfGraph;
      const m = await similarityMatrix(bowCosineV1, pg.nodes, c.gold_graph.nodes);
      for (const [i, row] of m.entries())
        for (const [j, v] of row.entries()) expect(Math.abs(v - c.sim_matrix_full![i]![j]!)).toBeLessThan(1e-11);
    }
  });

  it("topological orders match the orders upstream used, in networkx order", () => {
    let checked = 0;
    for (const c of scored) {
      const g = c.gold_graph;
      if (g.nodes.length >= 10) continue;
      const ours = [...topologicalOrdersNx(g.nodes.length, g.edges, 20)].map((o) =>
        o.filter((i) => i !== 0 && i !== g.nodes.length - 1),
      );
      expect(ours, c.case_id).toEqual(c.expected.gold_chain_orders_used_idx);
      checked++;
    }
    expect(checked).toBeGreaterThan(250);
  });

  it("nx-blossom matching equals upstream's graph-mode mapping on all cases, tied ones included", () => {
    let ties = 0;
    for (const c of scored) {
      const map = matchNodes(c.sim_matrix_full!, { threshold: 0.6, inclusive: false, matcher: "nx-blossom" });
      const exp = c.expected.graph_mapping_pred_to_gold!;
      expect(map, c.case_id).toEqual(Object.keys(exp).map((k) => exp[k]));
      if (c.has_exact_ties_above_threshold) ties++;
    }
    expect(ties).toBe(73);
  });

  it("f1_chain and f1_graph equal the upstream numbers on every scored case (1e-12)", () => {
    const failures: string[] = [];
    for (const c of scored) {
      const res = scoreWorfPair(c.pred_graph as WorfGraph, c.gold_graph, c.sim_matrix_full!, {
        mode: "upstream",
        similarityName: "bow_cosine_v1",
      });
      const g = c.expected.graph!;
      const close = (a: number, b: number) => Math.abs(a - b) <= 1e-12;
      if (
        !close(res.graph.precision, g.precision) ||
        !close(res.graph.recall, g.recall) ||
        !close(res.graph.f1, g.f1_score)
      ) {
        failures.push(`${c.case_id} graph ${JSON.stringify(res.graph.f1)} vs ${g.f1_score}`);
      }
      const ch = c.expected.chain!;
      if ("error" in ch) {
        // Upstream crashes (empty pred chain); we score 0 and say so.
        expect(res.chain.f1).toBe(0);
        expect(res.notes.join(" ")).toMatch(/Q9/);
        continue;
      }
      if (
        !close(res.chain.precision, ch.precision) ||
        !close(res.chain.recall, ch.recall) ||
        !close(res.chain.f1, ch.f1_score)
      ) {
        failures.push(`${c.case_id} chain ${res.chain.f1} vs ${ch.f1_score}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it("the async text path (parse + bow_cosine_v1 from scratch) gives the same numbers", async () => {
    for (const c of cases) {
      const res = await evaluateWorf(c.pred_text, c.gold_text, { mode: "upstream", similarity: bowCosineV1 });
      expect(res.similarity).toBe("bow_cosine_v1");
      if (c.expected.graph === null) {
        expect(res.parseable, c.case_id).toBe(false);
        expect(res.chain.f1 + res.graph.f1).toBe(0);
        continue;
      }
      expect(res.graph.f1, c.case_id).toBeCloseTo(c.expected.graph.f1_score, 12);
      const ch = c.expected.chain!;
      expect(res.chain.f1, c.case_id).toBeCloseTo("error" in ch ? 0 : ch.f1_score, 12);
    }
  });

  it("paper mode on the same cases: identity = 1.0/1.0, scores in [0,1], every MCIS exact", () => {
    for (const c of scored) {
      const res = scoreWorfPair(c.pred_graph as WorfGraph, c.gold_graph, c.sim_matrix_full!, {
        mode: "paper",
        similarityName: "bow_cosine_v1",
      });
      expect(res.graph.exact, c.case_id).toBe(true);
      for (const v of [res.chain.f1, res.graph.f1]) expect(v >= 0 && v <= 1, c.case_id).toBe(true);
      if (c.perturbation === "identity") expect([res.chain.f1, res.graph.f1], c.case_id).toEqual([1, 1]);
    }
  });

  it("task aggregation divides by the number of gold items and averages P, R, F separately", async () => {
    const os = cases.filter((c) => c.case_id.startsWith("os_92::"));
    const results: WorfPairScore[] = [];
    for (const c of os)
      results.push(await evaluateWorf(c.pred_text, c.gold_text, { mode: "upstream", similarity: bowCosineV1 }));
    const agg = aggregateWorf(results);
    expect(agg.count).toBe(os.length);
    expect(agg.unparseable).toBe(2);
    const expF =
      os.reduce((s, c) => s + (c.expected.chain && "f1_score" in c.expected.chain ? c.expected.chain.f1_score : 0), 0) /
      os.length;
    expect(agg.chain.f1).toBeCloseTo(expF, 12);
  });
});
