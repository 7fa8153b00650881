/**
 * MCTS over workflows (FlowScout, METRICS.md §2.5). The root is the mined workflow; a tree node has at
 * most `maxChildren` (3) children. Each iteration:
 * 1. selection — from the root, while the node is full, go to the child maximising
 *    Q(c) + λ_t·sqrt(ln(N(parent)+1) / (N(c)+1)), unvisited children first, with λ cosine-annealed
 *    from λmax to λmin over the iterations;
 * 2. expansion — the optimiser model proposes graph edits from the node's cached feedback; they go
 *    through the edit API, rejected ones are fed back;
 * 3. simulation — the child runs on the optimisation set: reward = mean (TC + ES)/2; its validation
 *    score is computed alongside;
 * 4. backpropagation — the reward is added along the path.
 * The search stops after `iterations`, or after `patience` iterations without a better validation
 * score; the returned best is the node with the highest validation score.
 */
import { NotConfiguredError } from "../ir/errors.js";
import type { LlmService, ModelRef, ToolSpec } from "../ir/services.js";
import type { Workflow } from "../ir/workflow.js";
import type { RecordSplit } from "../mine/records.js";
import { describeEdit, type Edit } from "./edits.js";
import { type CandidateEvaluation, type Evaluator, feedbackText, workflowHash } from "./evaluate.js";
import { proposeEdits } from "./propose.js";

export interface SearchNode {
  id: number;
  parent?: number;
  children: number[];
  depth: number;
  workflow: Workflow;
  hash: string;
  edits: Edit[];
  rejected: number;
  rationale: string;
  iteration: number;
  visits: number;
  totalReward: number;
  /** Own evaluation on the optimisation set. */
  reward: number;
  tc: number;
  es: number;
  validation: number;
  /** Expansions from this node that produced nothing new. */
  failedExpansions: number;
  evaluation: CandidateEvaluation;
}

export interface IterationRecord {
  iteration: number;
  lambda: number;
  selected: number;
  /** The new child, or undefined when the expansion produced nothing new. */
  child?: number;
  edits: string[];
  rejected: number;
  tc: number;
  es: number;
  reward: number;
  validation: number;
  bestValidation: number;
  improved: boolean;
  /** The optimiser call failed (after the LLM layer's own retries). */
  error?: string;
}

export type MctsEvent =
  | { type: "root"; node: SearchNode }
  | { type: "iteration"; record: IterationRecord; node?: SearchNode }
  | { type: "stopped"; reason: "iterations" | "patience"; iterations: number };

export interface MctsOptions {
  llm: LlmService;
  /** The optimiser model. */
  model: ModelRef;
  evaluator: Evaluator;
  split: RecordSplit;
  iterations?: number;
  patience?: number;
  maxChildren?: number;
  lambdaMax?: number;
  lambdaMin?: number;
  /** Re-asks after an all-rejected plan (default 1). */
  proposalRetries?: number;
  /** Tool catalogue shown to the optimiser model. */
  tools?: ToolSpec[];
  /** Evaluate the best on the test split at the end (default true). */
  test?: boolean;
  onEvent?: (e: MctsEvent) => void;
}

export interface MctsResult {
  nodes: SearchNode[];
  root: SearchNode;
  best: SearchNode;
  history: IterationRecord[];
  stopReason: "iterations" | "patience";
  test?: CandidateEvaluation;
}

/** λ_t = λmin + ½(λmax − λmin)(1 + cos(π t / T)), t = 1..T. */
export function annealedLambda(t: number, total: number, max: number, min: number): number {
  return min + 0.5 * (max - min) * (1 + Math.cos((Math.PI * t) / Math.max(1, total)));
}

export function uctScore(
  child: Pick<SearchNode, "visits" | "totalReward">,
  parentVisits: number,
  lambda: number,
): number {
  const q = child.visits === 0 ? 0 : child.totalReward / child.visits;
  return q + lambda * Math.sqrt(Math.log(parentVisits + 1) / (child.visits + 1));
}

/** Descends while the node is full; unvisited children first, then the best UCT score (ties: older child). */
export function selectNode(nodes: readonly SearchNode[], lambda: number, maxChildren: number): SearchNode {
  let cur = nodes[0]!;
  const full = (n: SearchNode) => n.children.length >= maxChildren || n.failedExpansions >= maxChildren;
  while (full(cur) && cur.children.length > 0) {
    const kids = cur.children.map((id) => nodes[id]!);
    const unvisited = kids.find((k) => k.visits === 0);
    if (unvisited) return unvisited;
    let best = kids[0]!;
    let bestScore = -Infinity;
    for (const k of kids) {
      const s = uctScore(k, cur.visits, lambda);
      if (s > bestScore) {
        best = k;
        bestScore = s;
      }
    }
    cur = best;
  }
  return cur;
}

export async function optimiseWorkflow(initial: Workflow, o: MctsOptions): Promise<MctsResult> {
  const T = o.iterations ?? 30;
  const patience = o.patience ?? 5;
  const maxChildren = o.maxChildren ?? 3;
  const lmax = o.lambdaMax ?? 1.0;
  const lmin = o.lambdaMin ?? 0.1;
  const emit = o.onEvent ?? (() => {});
  const evalBoth = async (wf: Workflow) => {
    const [opt, val] = await Promise.all([
      o.evaluator.evaluate(wf, o.split.optimisation, "optimisation"),
      o.evaluator.evaluate(wf, o.split.validation, "validation"),
    ]);
    return { opt, val };
  };

  const nodes: SearchNode[] = [];
  const { opt: rootOpt, val: rootVal } = await evalBoth(initial);
  const root: SearchNode = {
    id: 0,
    children: [],
    depth: 0,
    workflow: initial,
    hash: rootOpt.hash,
    edits: [],
    rejected: 0,
    rationale: "mined workflow",
    iteration: 0,
    visits: 1,
    totalReward: rootOpt.reward,
    reward: rootOpt.reward,
    tc: rootOpt.tc,
    es: rootOpt.es,
    validation: o.split.validation.length > 0 ? rootVal.reward : rootOpt.reward,
    failedExpansions: 0,
    evaluation: rootOpt,
  };
  nodes.push(root);
  emit({ type: "root", node: root });
  const seen = new Map<string, number>([[root.hash, 0]]);
  let best = root;
  let sinceImprovement = 0;
  const history: IterationRecord[] = [];
  let stopReason: MctsResult["stopReason"] = "iterations";

  for (let t = 1; t <= T; t++) {
    const lambda = annealedLambda(t, T, lmax, lmin);
    const parent = selectNode(nodes, lambda, maxChildren);
    const tried = parent.children.map((id) => ({ edits: nodes[id]!.edits, reward: nodes[id]!.reward }));
    let proposal: Awaited<ReturnType<typeof proposeEdits>>;
    let proposalError: string | undefined;
    try {
      proposal = await proposeEdits({
        llm: o.llm,
        model: o.model,
        workflow: parent.workflow,
        scores: { tc: parent.tc, es: parent.es, reward: parent.reward },
        feedback: feedbackText(parent.evaluation),
        tried,
        retries: o.proposalRetries,
        tools: o.tools,
      });
    } catch (err) {
      // A missing model is a configuration problem; anything else costs this iteration only.
      if (err instanceof NotConfiguredError) throw err;
      proposalError = err instanceof Error ? err.message : String(err);
      proposal = {
        workflow: parent.workflow,
        applied: [],
        rejected: [],
        rationale: "",
        attempts: 0,
        usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0 },
      };
    }
    let record: IterationRecord;
    let child: SearchNode | undefined;
    const hashOf = proposal.applied.length > 0 ? workflowHash(proposal.workflow) : undefined;
    if (!hashOf || seen.has(hashOf)) {
      // Nothing new: the node is a little closer to "full" so selection moves on from it.
      parent.failedExpansions++;
      record = {
        iteration: t,
        lambda,
        selected: parent.id,
        edits: proposal.applied.map(describeEdit),
        rejected: proposal.rejected.length,
        tc: Number.NaN,
        es: Number.NaN,
        reward: Number.NaN,
        validation: Number.NaN,
        bestValidation: best.validation,
        improved: false,
        ...(proposalError ? { error: proposalError } : {}),
      };
    } else {
      const { opt, val } = await evalBoth(proposal.workflow);
      child = {
        id: nodes.length,
        parent: parent.id,
        children: [],
        depth: parent.depth + 1,
        workflow: proposal.workflow,
        hash: opt.hash,
        edits: proposal.applied,
        rejected: proposal.rejected.length,
        rationale: proposal.rationale,
        iteration: t,
        visits: 1,
        totalReward: opt.reward,
        reward: opt.reward,
        tc: opt.tc,
        es: opt.es,
        validation: o.split.validation.length > 0 ? val.reward : opt.reward,
        failedExpansions: 0,
        evaluation: opt,
      };
      nodes.push(child);
      seen.set(child.hash, child.id);
      parent.children.push(child.id);
      for (let a: SearchNode | undefined = parent; a; a = a.parent === undefined ? undefined : nodes[a.parent]) {
        a.visits += 1;
        a.totalReward += child.reward;
      }
      const improved = child.validation > best.validation;
      if (improved) best = child;
      record = {
        iteration: t,
        lambda,
        selected: parent.id,
        child: child.id,
        edits: child.edits.map(describeEdit),
        rejected: child.rejected,
        tc: child.tc,
        es: child.es,
        reward: child.reward,
        validation: child.validation,
        bestValidation: best.validation,
        improved,
      };
    }
    history.push(record);
    emit({ type: "iteration", record, node: child });
    sinceImprovement = record.improved ? 0 : sinceImprovement + 1;
    if (sinceImprovement >= patience) {
      stopReason = "patience";
      break;
    }
  }
  emit({ type: "stopped", reason: stopReason, iterations: history.length });
  const test =
    (o.test ?? true) && o.split.test.length > 0
      ? await o.evaluator.evaluate(best.workflow, o.split.test, "test")
      : undefined;
  return { nodes, root, best, history, stopReason, test };
}
