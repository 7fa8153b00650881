import { describe, expect, it } from "vitest";
import { readToolCatalog } from "../../src/compile/compile.js";
import { lowerModel } from "../../src/compile/lower.js";
import { parseModel } from "../../src/compile/model.js";
import { staticCheck } from "../../src/compile/validate/static.js";
import { loadDomain } from "../../src/eval/sopbench/index.js";
import { evaluateWorkflowOnDomain } from "../../src/eval/sopbench/run-workflow.js";
import { dangerousGoodsModel } from "./fixtures.js";

describe("lowering", () => {
  it("dangerous goods: branch → if-else, join → variable-aggregator, tool steps → tool nodes; passes the analyser", async () => {
    const d = loadDomain("dangerous_goods");
    const tools = readToolCatalog(d.toolSpecs, "sopbench/dangerous_goods");
    const lowered = lowerModel(parseModel(dangerousGoodsModel()), { tools });
    const st = staticCheck(lowered);
    expect(st.errors).toEqual([]);
    const types = lowered.workflow.nodes.map((n) => n.type);
    expect(types.filter((t) => t === "if-else")).toHaveLength(1);
    expect(types.filter((t) => t === "variable-aggregator")).toHaveLength(1);
    expect(types.filter((t) => t === "tool")).toHaveLength(4);
    const r = await evaluateWorkflowOnDomain(lowered.workflow, "dangerous_goods", { limit: 40 });
    expect(r.perRun[0]!.errors).toBe(0);
    expect(r.perRun[0]!.strictCorrect).toBeGreaterThan(30);
  });
});

describe("lowering loops and agents", () => {
  it("a loop becomes a loop container whose body carries its artifacts in loop variables", async () => {
    const { runWorkflow } = await import("../../src/engine/run.js");
    const { createSandbox } = await import("../../src/sandbox/index.js");
    const model = parseModel({
      inputs: [{ name: "n", type: "number" }],
      steps: [
        {
          id: "inc",
          kind: "code",
          instruction: "Add one to the counter.",
          reads: ["counter"],
          writes: [{ name: "counter", type: "number" }],
          code: "function main({ counter }) {\n  return { counter: (counter || 0) + 1 };\n}",
        },
        {
          id: "double",
          kind: "code",
          instruction: "Double the count.",
          reads: ["counter"],
          writes: [{ name: "twice", type: "number" }],
          code: "function main({ counter }) {\n  return { twice: counter * 2 };\n}",
        },
      ],
      loops: [
        {
          id: "count_up",
          body: ["inc"],
          break_condition: {
            logical_operator: "and",
            conditions: [{ artifact: "counter", comparison_operator: "≥", value: "{{#start.n#}}" }],
          },
          max_rounds: 20,
        },
      ],
      flow: ["count_up", "double"],
      outputs: [
        { name: "count", artifact: "counter" },
        { name: "twice", artifact: "twice" },
      ],
    });
    const lowered = lowerModel(model);
    expect(staticCheck(lowered).errors).toEqual([]);
    const loop = lowered.workflow.nodes.find((n) => n.type === "loop")!;
    expect(loop.config.loop_variables).toEqual([{ label: "counter", var_type: "number", value_type: "constant" }]);
    expect(lowered.workflow.nodes.filter((n) => n.parentId === "count_up").map((n) => n.type)).toEqual([
      "loop-start",
      "code",
      "assigner",
    ]);
    const run = await runWorkflow(lowered.workflow, { inputs: { n: 3 }, services: { sandbox: createSandbox() } });
    expect(run.status).toBe("succeeded");
    expect(run.outputs).toEqual({ count: 3, twice: 6 });
  });

  it("an agent step with tools becomes an agent node plus a node that reads its JSON answer", () => {
    const d = loadDomain("order_fulfillment");
    const lowered = lowerModel(
      parseModel({
        inputs: [{ name: "product_id", type: "string" }],
        steps: [
          {
            id: "inv",
            kind: "agent",
            instruction: "Find the inventory status.",
            reads: ["product_id"],
            tools: ["check_inventory"],
            writes: [{ name: "inventory_status", type: "string" }],
            gates: [{ artifact: "inventory_status", check: "not_empty" }],
          },
        ],
        flow: ["inv"],
        outputs: [{ name: "status", artifact: "inventory_status" }],
      }),
      { tools: readToolCatalog(d.toolSpecs, "sopbench/order_fulfillment") },
    );
    expect(staticCheck(lowered).errors).toEqual([]);
    const agent = lowered.workflow.nodes.find((n) => n.type === "agent")!;
    const params = agent.config.agent_parameters as Record<string, { value: unknown }>;
    expect(params.tools!.value).toEqual([
      expect.objectContaining({ tool_name: "check_inventory", provider_name: "sopbench/order_fulfillment" }),
    ]);
    expect(params.query!.value).toBe("product_id: {{#start.product_id#}}");
    expect(agent.config.gates).toEqual([
      expect.objectContaining({
        output: "text",
        check: "json_schema",
        value: { type: "object", required: ["inventory_status"], properties: { inventory_status: {} } },
      }),
    ]);
    expect(lowered.selectors.inventory_status).toEqual(["inv_out", "inventory_status"]);
  });

  it("reports unknown tools, unknown parameters and missing required arguments", () => {
    const d = loadDomain("order_fulfillment");
    const lowered = lowerModel(
      parseModel({
        inputs: [{ name: "product_id", type: "string" }],
        steps: [
          {
            id: "a",
            kind: "tool",
            instruction: "x",
            tool: "check_inventory",
            reads: ["product_id"],
            args: { product_id: "product_id", colour: { const: "red" } },
            writes: [{ name: "s", type: "string", field: "inventory_status" }],
          },
          { id: "b", kind: "tool", instruction: "y", tool: "no_such_tool", writes: [] },
        ],
        flow: ["a", "b"],
        outputs: [{ name: "s", artifact: "s" }],
      }),
      { tools: readToolCatalog(d.toolSpecs, "sopbench/order_fulfillment") },
    );
    expect(
      staticCheck(lowered)
        .errors.map((e) => e.code)
        .sort(),
    ).toEqual(["compile.missing_argument", "compile.unknown_parameter", "compile.unknown_tool"]);
  });
});

describe("model structure", () => {
  it("names every structural problem with its path", async () => {
    const { ModelError } = await import("../../src/compile/model.js");
    const bad = {
      steps: [
        { id: "a", kind: "code", instruction: "x", writes: [{ name: "v", type: "string" }], code: "return 1" },
        { id: "b", kind: "tool", instruction: "y", writes: [] },
        {
          id: "c",
          kind: "agent",
          instruction: "z",
          writes: [{ name: "w", type: "string" }],
          gates: [{ artifact: "nope", check: "not_empty" }],
        },
      ],
      branches: [
        {
          id: "br",
          condition: { conditions: [{ artifact: "v", comparison_operator: "is", value: "1" }] },
          // biome-ignore lint/suspicious/noThenProperty: a branch's `then` path, a field of the workflow model
          then: ["a"],
          else: ["br"],
        },
      ],
      flow: ["a", "zzz"],
      outputs: [{ name: "v", artifact: "v" }],
    };
    let err: unknown;
    try {
      parseModel(bad);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ModelError);
    const issues = (err as InstanceType<typeof ModelError>).details.issues as Array<{ path: string; message: string }>;
    const text = issues.map((i) => `${i.path}: ${i.message}`).join("\n");
    expect(text).toContain('flow.1: "zzz" is not a step, branch or loop id');
    expect(text).toContain("already placed at flow.0");
    expect(text).toContain('"br" contains itself');
    expect(text).toContain('steps.0.code: code step "a" must define function main');
    expect(text).toContain('steps.1.tool: tool step "b" names no tool');
    expect(text).toContain('gate on "nope"');
    expect(text).toContain('"c" is defined but never placed');
  });
});

describe("long artifact names", () => {
  it("an llm step reads a column name longer than a template segment through Jinja2 variables", () => {
    const lowered = lowerModel(
      parseModel({
        inputs: [{ name: "handling_and_storage_guidelines", type: "string" }],
        steps: [
          {
            id: "summarise",
            kind: "agent",
            instruction: "Summarise the handling guidelines.",
            reads: ["handling_and_storage_guidelines"],
            writes: [{ name: "summary", type: "string" }],
          },
        ],
        flow: ["summarise"],
        outputs: [{ name: "summary", artifact: "summary" }],
      }),
    );
    expect(staticCheck(lowered).errors).toEqual([]);
    const llm = lowered.workflow.nodes.find((n) => n.type === "llm")!;
    const user = (llm.config.prompt_template as Array<Record<string, unknown>>)[1]!;
    expect(user).toMatchObject({
      role: "user",
      edition_type: "jinja2",
      jinja2_text: "handling_and_storage_guidelines: {{ v0 }}",
    });
    expect(llm.config.prompt_config).toEqual({
      jinja2_variables: [{ variable: "v0", value_selector: ["start", "handling_and_storage_guidelines"] }],
    });
  });
});

describe("nested constructs", () => {
  it("a branch inside a loop: the join is in the body, its merged artifact is carried across rounds", async () => {
    const { runWorkflow } = await import("../../src/engine/run.js");
    const { createSandbox } = await import("../../src/sandbox/index.js");
    const { enumerateObligations } = await import("../../src/compile/validate/obligations.js");
    const model = parseModel({
      inputs: [{ name: "rounds", type: "number" }],
      steps: [
        {
          id: "inc",
          kind: "code",
          instruction: "Count one more.",
          reads: ["counter"],
          writes: [{ name: "counter", type: "number" }],
          code: "function main({ counter }) {\n  return { counter: (counter || 0) + 1 };\n}",
        },
        {
          id: "parity",
          kind: "code",
          instruction: "Is it even?",
          reads: ["counter"],
          writes: [{ name: "even", type: "boolean" }],
          code: "function main({ counter }) {\n  return { even: counter % 2 === 0 };\n}",
        },
        {
          id: "mark_even",
          kind: "code",
          instruction: "Label even.",
          writes: [{ name: "label", type: "string" }],
          code: 'function main() {\n  return { label: "even" };\n}',
        },
        {
          id: "mark_odd",
          kind: "code",
          instruction: "Label odd.",
          writes: [{ name: "label", type: "string" }],
          code: 'function main() {\n  return { label: "odd" };\n}',
        },
      ],
      branches: [
        {
          id: "is_even",
          condition: {
            logical_operator: "and",
            conditions: [{ artifact: "even", comparison_operator: "is", value: "true" }],
          },
          // biome-ignore lint/suspicious/noThenProperty: a branch's `then` path, a field of the workflow model
          then: ["mark_even"],
          else: ["mark_odd"],
        },
      ],
      loops: [
        {
          id: "rounds_loop",
          body: ["inc", "parity", "is_even"],
          break_condition: {
            logical_operator: "and",
            conditions: [{ artifact: "counter", comparison_operator: "≥", value: "{{#start.rounds#}}" }],
          },
        },
      ],
      flow: ["rounds_loop"],
      outputs: [
        { name: "counter", artifact: "counter" },
        { name: "label", artifact: "label" },
      ],
    });
    const lowered = lowerModel(model);
    expect(staticCheck(lowered).errors).toEqual([]);
    const body = lowered.workflow.nodes.filter((n) => n.parentId === "rounds_loop").map((n) => n.type);
    expect(body).toEqual(["loop-start", "code", "code", "if-else", "code", "code", "variable-aggregator", "assigner"]);
    const sandbox = createSandbox();
    for (const [rounds, label] of [
      [3, "odd"],
      [4, "even"],
    ] as const) {
      const run = await runWorkflow(lowered.workflow, { inputs: { rounds }, services: { sandbox } });
      expect(run.status).toBe("succeeded");
      expect(run.outputs).toEqual({ counter: rounds, label });
    }
    const obligations = enumerateObligations(model).map((o) => `${o.kind}:${o.construct}`);
    expect(obligations).toEqual([
      "loop:rounds_loop",
      "sequence:inc|parity",
      "sequence:parity|is_even",
      "branch:is_even",
    ]);
  });
});

describe("lowering approval steps", () => {
  const model = () =>
    parseModel({
      inputs: [{ name: "amount", type: "number" }],
      steps: [
        {
          id: "sign_off",
          kind: "approval",
          title: "Manager sign-off",
          instruction: "A manager approves refunds over 100.",
          reads: ["amount"],
          writes: [
            { name: "decision", type: "string" },
            { name: "approved", type: "boolean" },
            { name: "comment", type: "string", description: "Why" },
          ],
          timeout_hours: 24,
        },
        {
          id: "refund",
          kind: "code",
          instruction: "Refund when approved.",
          reads: ["approved", "comment", "decision"],
          writes: [{ name: "result", type: "string" }],
          code: "function main({ approved, comment, decision }) {\n  return { result: (approved ? 'refunded' : 'kept') + ' ' + decision + ' ' + comment };\n}",
        },
      ],
      flow: ["sign_off", "refund"],
      outputs: [{ name: "result", artifact: "result" }],
    });

  it("becomes a human-input node whose answer (or timeout) is the step's artifacts; the run pauses and resumes", async () => {
    const { runWorkflow, resumeRun } = await import("../../src/engine/run.js");
    const { createSandbox } = await import("../../src/sandbox/index.js");
    const { StoredHumanInput, submitForm } = await import("../../src/engine/human-input.js");
    const { MemoryFormStore } = await import("../../src/store/memory/forms.js");
    const { MemoryRunStore } = await import("../../src/store/memory/runs.js");
    const lowered = lowerModel(model());
    expect(staticCheck(lowered).errors).toEqual([]);
    const ask = lowered.workflow.nodes.find((n) => n.type === "human-input")!;
    expect(ask.config).toMatchObject({
      form_content: "A manager approves refunds over 100.\n\namount: {{#start.amount#}}\n\nWhy: {{#$output.comment#}}",
      inputs: [expect.objectContaining({ type: "paragraph", output_variable_name: "comment" })],
      timeout: 24,
      timeout_unit: "hour",
    });
    expect((ask.config.user_actions as Array<{ id: string }>).map((a) => a.id)).toEqual(["approve", "reject"]);

    const forms = new MemoryFormStore();
    const store = new MemoryRunStore();
    const services = { sandbox: createSandbox(), humanInput: new StoredHumanInput(forms) };
    const paused = await runWorkflow(lowered.workflow, { inputs: { amount: 250 }, services, store });
    expect(paused.status).toBe("paused");
    const [form] = await forms.runForms(paused.runId);
    expect(form!.content).toContain("amount: 250");
    await submitForm(forms, form!.id, { action: "approve", inputs: { comment: "ok" } }, Date.now());
    const done = await resumeRun(paused.runId, { services, store });
    expect(done.outputs).toEqual({ result: "refunded approve ok" });

    // Nobody answers within the timeout: decision "timeout", not approved.
    const late = await runWorkflow(lowered.workflow, {
      inputs: { amount: 250 },
      services: { ...services, now: () => new Date(Date.now() + 25 * 3_600_000) },
      store,
    });
    expect(late.status).toBe("paused");
    const expired = await resumeRun(late.runId, {
      services: { ...services, now: () => new Date(Date.now() + 50 * 3_600_000) },
      store,
    });
    expect(expired.outputs).toEqual({ result: "kept timeout " });
  });

  it("refuses approval writes a person cannot give", () => {
    expect(() =>
      parseModel({
        inputs: [],
        steps: [{ id: "a", kind: "approval", instruction: "x", writes: [{ name: "n", type: "number" }] }],
        flow: ["a"],
        outputs: [{ name: "n", artifact: "n" }],
      }),
    ).toThrow(/approval step "a" writes "n" as number/);
  });
});
