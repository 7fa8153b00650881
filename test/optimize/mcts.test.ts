import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { llmJudge } from "../../src/eval/metrics/es.js";
import type { Workflow } from "../../src/ir/workflow.js";
import { mineWorkflow, splitRecords } from "../../src/mine/index.js";
import {
  type EsScorer,
  Evaluator,
  feedbackText,
  judgeScorer,
  tokenF1Scorer,
  workflowHash,
} from "../../src/optimize/evaluate.js";
import {
  annealedLambda,
  type MctsEvent,
  optimiseWorkflow,
  type SearchNode,
  selectNode,
  uctScore,
} from "../../src/optimize/mcts.js";
import { replayLlm } from "../support/replay-llm.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import {
  DirectoryTools,
  EXECUTOR,
  executorReply,
  isExecutor,
  OPTIMISER,
  phoneRecords,
  TOOL_SPECS,
} from "./fixtures.js";

let server: ReplayServer;
beforeAll(async () => {
  server = await startReplayServer();
});
afterAll(async () => server.close());
beforeEach(() => {
  server.reset();
  server.when(isExecutor, executorReply, { times: Infinity });
});

const llm = () => replayLlm(server);
/** Deterministic ES: the answer states the reference's phone number. */
const phoneScorer: EsScorer = async ({ output, reference }) => {
  const phone = reference.match(/555-\d{4}/)?.[0];
  return phone && output.includes(phone) ? 1 : 0;
};

/** The mined root: logs from a tool version that only recorded find_person. */
function truncatedRoot(): Workflow {
  const old = phoneRecords().map((r) => ({ ...r, calls: r.calls.slice(0, 1) }));
  return mineWorkflow(old, { model: { provider: "openai", name: EXECUTOR }, tools: TOOL_SPECS }).workflow;
}

const plan = (edits: unknown[], rationale = "") => reply.json({ rationale, edits });
const addPhone = {
  kind: "add_node",
  node: { id: "phone", type: "tool-call", config: { candidates: ["get_phone"] } },
  after: "call1",
};
const optimiserRequests = () => server.requests.filter((r) => r.model === OPTIMISER);

describe("evaluation", () => {
  it("scores TC from the trace and ES from the answer, caches by workflow hash", async () => {
    const split = splitRecords(phoneRecords(), 1);
    const ev = new Evaluator({
      services: { llm: llm(), tools: new DirectoryTools() },
      scorer: phoneScorer,
      concurrency: 4,
    });
    const root = truncatedRoot();
    const a = await ev.evaluate(root, split.optimisation);
    expect(a.tasks).toHaveLength(5);
    expect(a.tc).toBe(0.5);
    expect(a.es).toBe(0);
    expect(a.reward).toBe(0.25);
    const n = server.requests.length;
    const b = await ev.evaluate(structuredClone(root), split.optimisation);
    expect(b).toBe(a);
    expect(server.requests.length).toBe(n);
    expect([ev.runs, ev.hits]).toEqual([1, 1]);
    // Titles do not change behaviour, so they do not change the hash; config does.
    const retitled = { ...root, nodes: root.nodes.map((x) => ({ ...x, title: "x" })) };
    expect(workflowHash(retitled)).toBe(workflowHash(root));
    expect(
      workflowHash({
        ...root,
        nodes: root.nodes.map((x) => (x.id === "call1" ? { ...x, config: { ...x.config, max_repairs: 0 } } : x)),
      }),
    ).not.toBe(workflowHash(root));
    const fb = feedbackText(a, 1);
    expect(fb).toContain('Reference tool calls: find_person({"name":');
    expect(fb).toContain("→ get_phone(");
    expect(fb).toContain("Workflow tool calls:  find_person(");
  });

  it("scores ES with the G-Eval judge over HTTP when asked", async () => {
    const split = splitRecords(phoneRecords(), 1);
    server.when(
      (r) => r.model === "judge",
      (r) => {
        const prompt = String(r.body.messages.at(-1).content);
        const good = /555-\d{4}/.test(prompt.split(/output/i).pop() ?? "");
        return reply.text(
          JSON.stringify({ correctness: good ? 5 : 1, completeness: good ? 5 : 1, relevance: 5, clarity: 5 }),
        );
      },
      { times: Infinity },
    );
    const ev = new Evaluator({
      services: { llm: llm(), tools: new DirectoryTools() },
      scorer: judgeScorer(llmJudge(llm(), { provider: "openai", name: "judge" })),
    });
    const a = await ev.evaluate(truncatedRoot(), split.validation);
    expect(a.tc).toBe(0.5);
    expect(a.es).toBe(0.5);
    expect(server.requests.filter((r) => r.model === "judge")).toHaveLength(split.validation.length);
  });

  it("token F1 is a deterministic ES stand-in", async () => {
    expect(await tokenF1Scorer({ task: "", output: "the phone is 555-1234", reference: "phone 555-1234" })).toBeCloseTo(
      (2 * (3 / 5) * 1) / (3 / 5 + 1),
    );
    expect(await tokenF1Scorer({ task: "", output: "", reference: "x" })).toBe(0);
  });
});

describe("MCTS statistics", () => {
  const mk = (
    id: number,
    parent: number | undefined,
    visits: number,
    total: number,
    children: number[] = [],
  ): SearchNode => ({ id, parent, children, visits, totalReward: total, failedExpansions: 0 }) as unknown as SearchNode;

  it("anneals λ by cosine from λmax to λmin", () => {
    expect(annealedLambda(0, 30, 1, 0.1)).toBeCloseTo(1);
    expect(annealedLambda(15, 30, 1, 0.1)).toBeCloseTo(0.55);
    expect(annealedLambda(30, 30, 1, 0.1)).toBeCloseTo(0.1);
  });

  it("expands a node until it has 3 children, then descends by UCT with unvisited children first", () => {
    const nodes = [mk(0, undefined, 4, 2, [1, 2]), mk(1, 0, 2, 1.8), mk(2, 0, 1, 0.1)];
    expect(selectNode(nodes, 1, 3).id).toBe(0);
    nodes[0]!.children.push(3);
    nodes.push(mk(3, 0, 0, 0));
    expect(selectNode(nodes, 1, 3).id).toBe(3);
    nodes[3]!.visits = 1;
    nodes[3]!.totalReward = 0.2;
    // 0.9 + λ·sqrt(ln 5 / 3) vs 0.1 + λ·sqrt(ln 5 / 2) vs 0.2 + λ·sqrt(ln 5 / 2)
    expect(uctScore(nodes[1]!, 4, 1)).toBeCloseTo(0.9 + Math.sqrt(Math.log(5) / 3));
    expect(selectNode(nodes, 1, 3).id).toBe(1);
    // With heavy exploration the less-visited child wins.
    expect(selectNode(nodes, 10, 3).id).toBe(3);
  });
});

describe("MCTS search", () => {
  it("improves the validation reward over the mined workflow, with edits proposed from feedback", async () => {
    const split = splitRecords(phoneRecords(), 1);
    const evaluator = new Evaluator({
      services: { llm: llm(), tools: new DirectoryTools() },
      scorer: phoneScorer,
      concurrency: 4,
    });
    server.enqueue(
      // iteration 1 (root): the first plan is rejected, the retry is valid
      plan([{ ...addPhone, after: "ghost" }], "look up the phone"),
      plan([addPhone], "the reference calls get_phone after find_person"),
      // iteration 2 (root): a prompt refinement
      plan([{ kind: "refine_prompt", id: "synth", template: "synthesising/structured" }]),
      // iteration 3 (root): a harmful edit
      plan([{ kind: "bypass_node", id: "call1" }]),
      // iteration 4 (root is full → best child): an instruction
      plan([{ kind: "refine_prompt", id: "phone", instruction: "Use the id that find_person returned." }]),
      // iteration 5 (same child): the same plan again → nothing new
      plan([{ kind: "refine_prompt", id: "phone", instruction: "Use the id that find_person returned." }]),
    );
    const events: MctsEvent[] = [];
    const r = await optimiseWorkflow(truncatedRoot(), {
      llm: llm(),
      model: { provider: "openai", name: OPTIMISER },
      evaluator,
      split,
      iterations: 10,
      patience: 4,
      tools: TOOL_SPECS,
      onEvent: (e) => events.push(e),
    });
    expect(server.unmatched).toEqual([]);
    expect(r.root.validation).toBe(0.25);
    expect(r.best.id).toBe(1);
    expect(r.best.validation).toBe(1);
    expect(r.best.workflow.nodes.some((n) => n.id === "phone")).toBe(true);
    expect(r.test?.reward).toBe(1);
    expect(r.stopReason).toBe("patience");

    expect(r.history.map((h) => [h.iteration, h.selected, h.child ?? null, h.reward])).toEqual([
      [1, 0, 1, 1],
      [2, 0, 2, 0.25],
      [3, 0, 3, 0],
      [4, 1, 4, 1],
      [5, 1, null, Number.NaN],
    ]);
    expect(r.history[0]!.rejected).toBe(1);
    expect(r.history.map((h) => h.improved)).toEqual([true, false, false, false, false]);
    // Tree statistics: N and W along the paths.
    expect(r.nodes.map((n) => [n.id, n.parent ?? null, n.visits, n.totalReward])).toEqual([
      [0, null, 5, 0.25 + 1 + 0.25 + 0 + 1],
      [1, 0, 2, 2],
      [2, 0, 1, 0.25],
      [3, 0, 1, 0],
      [4, 1, 1, 1],
    ]);
    expect(r.nodes[0]!.children).toEqual([1, 2, 3]);
    expect(r.nodes[1]!.failedExpansions).toBe(1);

    const opt = optimiserRequests();
    expect(opt).toHaveLength(6);
    const msg = (i: number) => opt[i]!.body.messages.map((m: any) => m.content).join("\n");
    expect(msg(0)).toContain("# Available tools\n- find_person: Find a person's id by name");
    expect(msg(0)).toContain("Reference tool calls: find_person");
    expect(msg(0)).toContain("get_phone");
    expect(msg(1)).toContain("edit.unknown_node");
    expect(msg(2)).toContain("add tool-call phone after call1] → reward 1.000");
    expect(msg(4)).toContain("phone [tool-call]");
    expect(events.filter((e) => e.type === "iteration")).toHaveLength(5);
    expect(events.at(-1)).toEqual({ type: "stopped", reason: "patience", iterations: 5 });
  });

  it("an optimiser failure costs one iteration, not the search", async () => {
    const split = splitRecords(phoneRecords(), 1);
    const evaluator = new Evaluator({ services: { llm: llm(), tools: new DirectoryTools() }, scorer: phoneScorer });
    server.enqueue(reply.status(500, { message: "overloaded" }), plan([addPhone]));
    const r = await optimiseWorkflow(truncatedRoot(), {
      llm: llm(),
      model: { provider: "openai", name: OPTIMISER },
      evaluator,
      split,
      iterations: 2,
      test: false,
    });
    expect(r.history[0]!.error).toMatch(/overloaded|500/);
    expect(r.history[0]!.child).toBeUndefined();
    expect(r.history[1]!.child).toBe(1);
    expect(r.best.id).toBe(1);
    expect(r.test).toBeUndefined();
    expect(r.stopReason).toBe("iterations");
  });
});
