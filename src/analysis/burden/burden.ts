import type { DataflowResult } from "../dataflow.js";
import type { AnalysisGraph } from "../graph.js";
import { type Decisions, graphCyclomatic, nodeDecisions, totalDecisions } from "./complexity.js";
import { estimateTokens, textTokens } from "./estimate.js";
import { computeLiveness } from "./liveness.js";

/**
 * Levels above which a node is a candidate for splitting. Cyclomatic 10 is McCabe's classic limit;
 * 8k tokens of context is where mid-size models start to lose instructions; 16 live artifacts or
 * 32k live tokens is more than a step can hold without summarising; 4k output tokens is a long answer.
 */
export const BURDEN_THRESHOLDS = {
  cyclomatic: 10,
  contextTokens: 8000,
  liveArtifacts: 16,
  liveTokens: 32000,
  outputTokens: 4000,
} as const;
export type BurdenThresholds = { [K in keyof typeof BURDEN_THRESHOLDS]: number };
export type BurdenMetric = keyof BurdenThresholds;

export interface NodeBurden {
  nodeId: string;
  type: string;
  /** Decision points + 1. */
  cyclomatic: number;
  decisions: Decisions;
  /** Estimated tokens the node reads: its own texts plus the values it reads. */
  contextTokens: number;
  /** Artifacts live across the node and their estimated size. */
  liveArtifacts: number;
  liveTokens: number;
  /** Declared outputs, and how many of them some node reads. */
  outputs: number;
  readOutputs: number;
  /** Estimated size of the outputs that are read downstream. */
  outputTokens: number;
  /** max over metrics of value / threshold; ≥ 1 means over some threshold. */
  score: number;
  over: BurdenMetric[];
}

export interface WorkflowBurden {
  nodes: number;
  edges: number;
  components: number;
  /** E − N + 2P over the graph (summed over container bodies). */
  cyclomatic: number;
  /** Graph cyclomatic plus every node's internal decision points. */
  decisionPoints: number;
  totalContextTokens: number;
  maxContextTokens: number;
  maxLiveArtifacts: number;
  maxLiveTokens: number;
  totalOutputTokens: number;
}

export interface BurdenReport {
  nodes: NodeBurden[];
  workflow: WorkflowBurden;
  thresholds: BurdenThresholds;
  /** Same-scope edges as [from, to] node ids, for region grouping. */
  edges: Array<[string, string]>;
}

export function computeBurden(g: AnalysisGraph, df: DataflowResult, thresholds: BurdenThresholds): BurdenReport {
  const live = computeLiveness(g, df.reads);
  const readTokens = new Float64Array(g.nodes.length);
  const seen = new Set<string>();
  for (const rr of df.reads) {
    const k = `${rr.read.reader}\u0000${rr.read.selector.join("\u0001")}`;
    if (seen.has(k)) continue;
    seen.add(k);
    readTokens[rr.read.reader]! += estimateTokens(rr.type);
  }
  // Artifact cost counts the outputs someone reads: declared-but-unread outputs (an LLM's empty
  // `files`) cost nothing downstream.
  const consumed = new Map<number, Map<string, number>>();
  for (const rr of df.reads) {
    const name = rr.read.selector[1];
    if (rr.producer === undefined || name === undefined) continue;
    let m = consumed.get(rr.producer);
    if (!m) {
      m = new Map();
      consumed.set(rr.producer, m);
    }
    const out = g.nodes[rr.producer]!.desc.outputs.find((o) => o.name === name);
    if (!m.has(name)) m.set(name, estimateTokens(out?.type ?? rr.type));
  }
  const nodes: NodeBurden[] = [];
  let decisionPoints = 0;
  for (const n of g.nodes) {
    const decisions = nodeDecisions(n);
    const d = totalDecisions(decisions);
    decisionPoints += d;
    let text = 0;
    for (const t of n.desc.texts) if (typeof t.text === "string") text += textTokens(t.text);
    // The start node re-exports system values as `sys.*`; they are aliases, not new artifacts.
    const outs = n.desc.outputs.filter((o) => !o.name.startsWith("sys."));
    const nb: NodeBurden = {
      nodeId: n.id,
      type: n.node.type,
      cyclomatic: d + 1,
      decisions,
      contextTokens: Math.round(text + readTokens[n.idx]!),
      liveArtifacts: live.count[n.idx]!,
      liveTokens: Math.round(live.tokens[n.idx]!),
      outputs: outs.length,
      readOutputs: consumed.get(n.idx)?.size ?? 0,
      outputTokens: [...(consumed.get(n.idx)?.values() ?? [])].reduce((a, b) => a + b, 0),
      score: 0,
      over: [],
    };
    for (const m of Object.keys(thresholds) as BurdenMetric[]) {
      const ratio = nb[m] / thresholds[m];
      if (ratio > nb.score) nb.score = ratio;
      if (nb[m] > thresholds[m]) nb.over.push(m);
    }
    nb.score = Math.round(nb.score * 1000) / 1000;
    nodes.push(nb);
  }
  const gc = graphCyclomatic(g);
  const max = (f: (n: NodeBurden) => number) => nodes.reduce((m, n) => Math.max(m, f(n)), 0);
  return {
    nodes,
    thresholds,
    edges: g.edges.map((e) => [g.nodes[e.source]!.id, g.nodes[e.target]!.id]),
    workflow: {
      nodes: gc.nodes,
      edges: gc.edges,
      components: gc.components,
      cyclomatic: gc.value,
      decisionPoints: gc.value + decisionPoints,
      totalContextTokens: nodes.reduce((s, n) => s + n.contextTokens, 0),
      maxContextTokens: max((n) => n.contextTokens),
      maxLiveArtifacts: max((n) => n.liveArtifacts),
      maxLiveTokens: max((n) => n.liveTokens),
      totalOutputTokens: nodes.reduce((s, n) => s + n.outputTokens, 0),
    },
  };
}

export interface BurdenRegion {
  nodeIds: string[];
  /** Sum of the member nodes' scores. */
  score: number;
  /** Worst single node of the region. */
  peak: string;
  over: BurdenMetric[];
}

/**
 * The k heaviest regions: connected groups of nodes over some threshold (score ≥ 1), ranked by total
 * score; when fewer than k such groups exist, the highest-scoring remaining nodes follow as
 * single-node regions. This is what a splitter should look at first.
 */
export function worstRegions(report: BurdenReport, k: number): BurdenRegion[] {
  const byId = new Map(report.nodes.map((n) => [n.nodeId, n]));
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  const hot = report.nodes.filter((n) => n.score >= 1);
  for (const n of hot) parent.set(n.nodeId, n.nodeId);
  for (const [a, b] of report.edges) {
    if (parent.has(a) && parent.has(b)) {
      const ra = find(a);
      const rb = find(b);
      if (ra !== rb) parent.set(ra, rb);
    }
  }
  const groups = new Map<string, string[]>();
  for (const n of hot) {
    const r = find(n.nodeId);
    const l = groups.get(r);
    if (l) l.push(n.nodeId);
    else groups.set(r, [n.nodeId]);
  }
  const region = (ids: string[]): BurdenRegion => {
    const members = ids.map((id) => byId.get(id)!);
    const peak = members.reduce((a, b) => (b.score > a.score ? b : a));
    return {
      nodeIds: ids,
      score: Math.round(members.reduce((s, m) => s + m.score, 0) * 1000) / 1000,
      peak: peak.nodeId,
      over: [...new Set(members.flatMap((m) => m.over))],
    };
  };
  const out = [...groups.values()].map(region).sort((a, b) => b.score - a.score);
  if (out.length < k) {
    const rest = report.nodes.filter((n) => n.score < 1).sort((a, b) => b.score - a.score);
    for (const n of rest) {
      if (out.length >= k) break;
      out.push(region([n.nodeId]));
    }
  }
  return out.slice(0, Math.max(0, k));
}
