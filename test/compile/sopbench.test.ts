/**
 * End to end on SOP-Bench domains: the real SOP text and tool specs go through the compile pipeline (the
 * draft, extraction and judge answers are scripted), and the compiled workflow runs in the SOP-Bench tool
 * environment (tool nodes against SopBenchToolService) with a scripted model answering its agent steps.
 */
import { describe, expect, it } from "vitest";
import { compileSop, readToolCatalog } from "../../src/compile/compile.js";
import { artifactHistory, runCompiled } from "../../src/compile/runtime.js";
import { loadDomain, SopBenchToolService } from "../../src/eval/sopbench/index.js";
import { evaluateWorkflowOnDomain } from "../../src/eval/sopbench/run-workflow.js";
import { loadReferenceWorkflow } from "../../src/eval/sopbench/workflows/index.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { MemoryRunStore } from "../../src/store/memory/runs.js";
import { replayServerPerFile } from "../support/per-file.js";
import { type RecordedRequest, reply } from "../support/replay-server.js";
import { dangerousGoodsLogic, dangerousGoodsModel, orderFulfillmentLogic, orderFulfillmentModel } from "./fixtures.js";
import { lastUser, MODEL, ScriptedModel } from "./scripted.js";

const server = replayServerPerFile();

/** The agent step's model: reads the decision the tool returned from its prompt and reports it. */
/** Echo the decision the prompt shows; a gate-retry adds a feedback message after it, so search every message. */
function echoDecision(req: RecordedRequest) {
  const m = /decision: (\w+)/.exec(JSON.stringify(req.body.messages));
  return reply.json({ final_decision: m?.[1] ?? "manual_review" });
}

const LIMIT = 20;

describe("SOP-Bench: compile, then execute in the tool environment", () => {
  it("order_fulfillment: 4 tool steps + an agent step; same strict score as the reference workflow", async () => {
    const d = loadDomain("order_fulfillment");
    const tools = readToolCatalog(d.toolSpecs, "sopbench/order_fulfillment");
    const m = new ScriptedModel(server);
    m.push("source", reply.json(orderFulfillmentLogic)).push("draft", reply.json(orderFulfillmentModel()));
    const r = await compileSop({ sop: d.sop, tools, llm: m.llm(), model: MODEL });
    expect(r.report.static.errors).toEqual([]);
    expect(r.report.passed).toBe(true);
    // The real SOP and the real tool schemas were in the draft prompt.
    const draft = JSON.stringify(m.of("draft")[0]!.body.messages);
    expect(draft).toContain("ORDER FULFILLMENT PROCEDURE");
    expect(draft).toContain("make_fulfillment_decision");
    expect(r.report.obligationsChecked).toBe(4);
    const toolNodes = r.workflow.nodes.filter((n) => n.type === "tool");
    expect(toolNodes.map((n) => n.config.tool_name)).toEqual([
      "check_inventory",
      "validate_customer",
      "calculate_shipping",
      "make_fulfillment_decision",
    ]);
    expect(new Set(toolNodes.map((n) => n.config.provider_id))).toEqual(new Set(["sopbench/order_fulfillment"]));
    expect(r.workflow.nodes.find((n) => n.id === "answer")?.type).toBe("llm");

    m.always("runtime", echoDecision);
    const res = await evaluateWorkflowOnDomain(r.workflow, "order_fulfillment", {
      limit: LIMIT,
      services: { llm: m.llm() },
      concurrency: 4,
    });
    const ref = await evaluateWorkflowOnDomain(loadReferenceWorkflow("order_fulfillment"), "order_fulfillment", {
      limit: LIMIT,
    });
    expect(res.perRun[0]!.errors).toBe(0);
    expect(res.perRun[0]!.strictCorrect).toBe(ref.perRun[0]!.strictCorrect);
    expect(res.perRun[0]!.strictCorrect).toBeGreaterThan(LIMIT / 2);
    expect(m.of("runtime")).toHaveLength(LIMIT);
  });

  it("order_fulfillment: a gate rejects the agent step's first answer, the step is retried, and the history keeps the rejected output and the committed version", async () => {
    const d = loadDomain("order_fulfillment");
    const tools = readToolCatalog(d.toolSpecs, "sopbench/order_fulfillment");
    const m = new ScriptedModel(server);
    m.push("source", reply.json(orderFulfillmentLogic)).push("draft", reply.json(orderFulfillmentModel()));
    const r = await compileSop({ sop: d.sop, tools, llm: m.llm(), model: MODEL, skipObligations: true });
    m.push("runtime", reply.json({ final_decision: "ship it" }), echoDecision);
    const task = d.tasks[0]!;
    const store = new MemoryRunStore();
    const svc = new SopBenchToolService("order_fulfillment");
    const run = await runCompiled(r.lowered, {
      inputs: { ...task.inputs },
      store,
      services: { tools: svc, sandbox: createSandbox(), llm: m.llm(), now: () => svc.env.now() },
    });
    expect(run.status).toBe("succeeded");
    expect(run.outputs.expected_output).toBe(task.expected.expected_output);
    const h = await artifactHistory(store, run.runId, r.lowered, "final_decision");
    expect(h.selector).toEqual(["answer", "structured_output", "final_decision"]);
    expect(h.rejected).toEqual([
      { attempt: 1, value: "ship it", reason: expect.stringContaining("five decision categories") },
    ]);
    expect(h.versions.map((v) => v.value)).toEqual([task.expected.expected_output]);
    // The retry told the model why its first answer was rejected.
    expect(JSON.stringify(m.of("runtime").at(-1)!.body.messages)).toContain("Your previous answer was rejected");
    // Each SOP step called its tool once, in the SOP's order, with the artifacts the model wired.
    expect(svc.env.log.map((c) => c.tool)).toEqual([
      "check_inventory",
      "validate_customer",
      "calculate_shipping",
      "make_fulfillment_decision",
    ]);
    expect(svc.env.log[3]!.args).toMatchObject({ order_priority: task.inputs.order_priority });
  });

  it("dangerous_goods: branch on the id check, four tool steps, imputation code; same strict score as the reference", async () => {
    const d = loadDomain("dangerous_goods");
    const tools = readToolCatalog(d.toolSpecs, "sopbench/dangerous_goods");
    const m = new ScriptedModel(server);
    m.push("source", reply.json(dangerousGoodsLogic)).push("draft", reply.json(dangerousGoodsModel()));
    const r = await compileSop({ sop: d.sop, tools, llm: m.llm(), model: MODEL });
    expect(r.report.static.errors).toEqual([]);
    expect(r.report.passed).toBe(true);
    const dr = r.report.faithfulness[0]!.dryRun;
    expect(dr.decisions[0]).toMatchObject({ decision: "id_format_ok", construct: "valid_id", scenarios: 2 });
    expect(dr.disagreements).toEqual([]);
    // One branch obligation, one sequence boundary at the top, four in the then-path.
    const kinds = r.report.faithfulness[0]!.obligations.map((o) => o.kind);
    expect(kinds.filter((k) => k === "branch")).toHaveLength(1);
    expect(kinds.filter((k) => k === "sequence")).toHaveLength(5);

    const res = await evaluateWorkflowOnDomain(r.workflow, "dangerous_goods", { limit: 60 });
    const ref = await evaluateWorkflowOnDomain(loadReferenceWorkflow("dangerous_goods"), "dangerous_goods", {
      limit: 60,
    });
    expect(res.perRun[0]!.errors).toBe(0);
    expect(res.perRun[0]!.strictCorrect).toBe(ref.perRun[0]!.strictCorrect);
  });
});

describe("SOP-Bench: an agent step with tools", () => {
  it("calls the domain's tool through function calling and its JSON answer becomes the artifact", async () => {
    const d = loadDomain("order_fulfillment");
    const tools = readToolCatalog(d.toolSpecs, "sopbench/order_fulfillment");
    const m = new ScriptedModel(server);
    m.push("source", reply.json(orderFulfillmentLogic)).push(
      "draft",
      reply.json({
        inputs: [
          { name: "product_id", type: "string" },
          { name: "quantity_requested", type: "number" },
        ],
        steps: [
          {
            id: "inventory",
            kind: "agent",
            instruction: "Check the inventory for the product and quantity with the tool and report its status.",
            reads: ["product_id", "quantity_requested"],
            tools: ["check_inventory"],
            writes: [{ name: "inventory_status", type: "string" }],
          },
        ],
        flow: ["inventory"],
        outputs: [{ name: "inventory_status", artifact: "inventory_status" }],
      }),
    );
    const r = await compileSop({ sop: d.sop, tools, llm: m.llm(), model: MODEL, skipObligations: true });
    expect(r.report.static.errors).toEqual([]);
    const task = d.tasks[0]!;
    m.push(
      "runtime",
      (req) => {
        // The agent sees the task values rendered into its query, and the tool offered by name.
        expect(lastUser(req)).toContain(`product_id: ${task.inputs.product_id}`);
        expect(JSON.stringify(req.body.tools)).toContain("check_inventory");
        return reply.toolCall("check_inventory", {
          product_id: task.inputs.product_id,
          quantity_requested: task.inputs.quantity_requested,
        });
      },
      (req) => {
        const obs = (req.body.messages as Array<{ role: string; content: string }>).find(
          (x) => x.role === "tool",
        )!.content;
        return reply.text(`Done. ${JSON.stringify({ inventory_status: JSON.parse(obs).inventory_status })}`);
      },
    );
    const svc = new SopBenchToolService("order_fulfillment");
    const run = await runCompiled(r.lowered, {
      inputs: { ...task.inputs },
      services: { tools: svc, sandbox: createSandbox(), llm: m.llm(), now: () => svc.env.now() },
    });
    expect(run.status).toBe("succeeded");
    expect(svc.env.log.map((c) => c.tool)).toEqual(["check_inventory"]);
    expect(run.outputs.inventory_status).toBe(
      (svc.env.log[0]!.result as { inventory_status: string }).inventory_status,
    );
  });
});
