/**
 * Human input in the engine: a run pauses with its form (status `paused`, nothing held), resumes from its
 * commits once answered (nothing before the pause runs twice), takes `__timeout` when the form expires, and
 * pauses inside iterations item by item. Also the node's static rules and its Dify DSL round trip.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import { exportDify, importDify } from "../../src/dsl/dify/index.js";
import { FormError, StoredHumanInput, submitForm } from "../../src/engine/human-input.js";
import { resumeRun, runWorkflow } from "../../src/engine/run.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { createSandbox } from "../../src/sandbox/index.js";
import { MemoryFormStore } from "../../src/store/memory/forms.js";
import { MemoryRunStore } from "../../src/store/memory/runs.js";
import type { RunEvent } from "../../src/store/run-events.js";
import { buildWorkflow, tpl } from "../support/build.js";

const fixture = readFileSync(resolve(import.meta.dirname, "../fixtures/dify/human-input-approval.yml"), "utf8");
const HOUR = 3_600_000;

function setup(now = () => new Date()) {
  const store = new MemoryRunStore();
  const forms = new MemoryFormStore();
  const services = { humanInput: new StoredHumanInput(forms), now };
  const events: RunEvent[] = [];
  return { store, forms, services, events, onEvent: (e: RunEvent) => events.push(e) };
}

const review = (over: Record<string, unknown> = {}) => ({
  id: "ask",
  type: "human-input",
  title: "Review",
  form_content: "Check {{#draft.output#}}. Note: {{#$output.note#}}",
  inputs: [
    { type: "paragraph", output_variable_name: "note", default: { type: "variable", selector: ["draft", "output"] } },
  ],
  user_actions: [
    { id: "approve", title: "Approve", button_style: "primary" },
    { id: "reject", title: "Reject" },
  ],
  timeout: 1,
  timeout_unit: "hour",
  ...over,
});

function approvalFlow() {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "text", type: "text-input" }] },
      tpl("draft", "draft of {{ t }}", { t: ["start", "text"] }),
      review(),
      tpl("yes", "yes: {{ n }}", { n: ["ask", "note"] }),
      tpl("no", "no: {{ n }}", { n: ["ask", "note"] }),
      tpl("late", "late ({{ a }})", { a: ["ask", "__action_id"] }),
      {
        id: "agg",
        type: "variable-aggregator",
        output_type: "string",
        variables: [
          ["yes", "output"],
          ["no", "output"],
          ["late", "output"],
        ],
      },
      {
        id: "end",
        type: "end",
        outputs: [
          { variable: "out", value_selector: ["agg", "output"] },
          { variable: "shown", value_selector: ["ask", "__rendered_content"] },
        ],
      },
    ],
    edges: [
      ["start", "draft"],
      ["draft", "ask"],
      ["ask", "approve", "yes"],
      ["ask", "reject", "no"],
      ["ask", "__timeout", "late"],
      ["yes", "agg"],
      ["no", "agg"],
      ["late", "agg"],
      ["agg", "end"],
    ],
  });
}

const attemptsOf = (trace: Array<{ nodeId: string }>, id: string) => trace.filter((t) => t.nodeId === id).length;

describe("human input pauses a run", () => {
  it("pauses with the form, resumes from its commits with the answer, nothing before the pause twice", async () => {
    const s = setup();
    const wf = approvalFlow();
    expect(analyse(wf, nodeCatalogue).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const first = await runWorkflow(wf, {
      inputs: { text: "memo" },
      store: s.store,
      services: s.services,
      onEvent: s.onEvent,
    });
    expect(first.status).toBe("paused");
    expect((await s.store.getRun(first.runId))?.status).toBe("paused");
    const form = first.paused![0]!.form;
    expect(form).toMatchObject({
      key: "ask",
      nodeId: "ask",
      nodeTitle: "Review",
      content: "Check draft of memo. Note: {{#$output.note#}}",
      defaults: { note: "draft of memo" },
      actions: [{ id: "approve" }, { id: "reject" }],
    });
    expect(form.expiresAt! - form.createdAt).toBe(HOUR);
    expect(form.token).toMatch(/^[A-Za-z0-9_-]{22}$/);
    const paused = s.events.find((e) => e.type === "node_paused");
    expect(paused).toMatchObject({ key: "ask", nodeType: "human-input", form: { formId: form.formId } });
    expect(s.events.at(-1)).toMatchObject({
      type: "run_finished",
      status: "paused",
      paused: [{ key: "ask", formId: form.formId }],
    });
    expect(first.trace.find((t) => t.nodeId === "ask")?.status).toBe("paused");

    // Resumed without an answer: still paused, on the same form.
    const again = await resumeRun(first.runId, { store: s.store, services: s.services });
    expect(again.status).toBe("paused");
    expect(again.paused![0]!.form.formId).toBe(form.formId);

    await submitForm(s.forms, form.formId, { action: "approve", inputs: { note: "ship it" }, user: "ana" }, Date.now());
    const done = await resumeRun(first.runId, { store: s.store, services: s.services });
    expect(done.status).toBe("succeeded");
    expect(done.outputs).toEqual({ out: "yes: ship it", shown: "Check draft of memo. Note: ship it" });
    for (const id of ["start", "draft"]) expect(attemptsOf(done.trace, id)).toBe(1);
    const ask = done.trace.filter((t) => t.nodeId === "ask");
    expect(ask.map((t) => t.status)).toEqual(["paused", "paused", "succeeded"]);
    expect(ask[2]!.outputs).toMatchObject({ note: "ship it", __action_id: "approve", __action_value: "Approve" });
  });

  it("an expired form takes the node's __timeout port", async () => {
    let clock = Date.parse("2026-03-01T10:00:00Z");
    const s = setup(() => new Date(clock));
    const first = await runWorkflow(approvalFlow(), { inputs: { text: "memo" }, store: s.store, services: s.services });
    expect(first.status).toBe("paused");
    clock += HOUR - 1;
    expect((await resumeRun(first.runId, { store: s.store, services: s.services })).status).toBe("paused");
    clock += 1;
    const late = await resumeRun(first.runId, { store: s.store, services: s.services });
    expect(late.status).toBe("succeeded");
    expect(late.outputs.out).toBe("late ()");
    expect(late.trace.filter((t) => t.nodeId === "ask").at(-1)?.port).toBe("__timeout");
    const form = (await s.forms.runForms(first.runId))[0]!;
    expect(form.status).toBe("timeout");
    // Too late to answer now.
    await expect(
      submitForm(s.forms, form.id, { action: "approve", inputs: { note: "x" } }, clock),
    ).rejects.toMatchObject({
      code: "form.expired",
    });
  });

  it("other branches run on and commit while one waits", async () => {
    const s = setup();
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        tpl("draft", "d"),
        review({ timeout: 0 }),
        tpl("side", "side work"),
        tpl("after", "{{ n }}", { n: ["ask", "note"] }),
        { id: "end", type: "end", outputs: [{ variable: "side", value_selector: ["side", "output"] }] },
      ],
      edges: [
        ["start", "draft"],
        ["draft", "ask"],
        ["start", "side"],
        ["ask", "approve", "after"],
        ["side", "end"],
      ],
    });
    const r = await runWorkflow(wf, { store: s.store, services: s.services });
    expect(r.status).toBe("paused");
    expect(r.paused![0]!.form.expiresAt).toBeNull();
    expect([...(await s.store.committed(r.runId)).keys()].sort()).toEqual(["draft", "end", "side", "start"]);
    expect(r.outputs).toEqual({ side: "side work" });
  });

  it("inside an iteration each item waits for its own form; finished items replay", async () => {
    const s = setup();
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        {
          id: "items",
          type: "code",
          code_language: "javascript",
          code: "function main() { return { list: ['a', 'b'] } }",
          variables: [],
          outputs: { list: { type: "array[string]" } },
        },
        {
          id: "it",
          type: "iteration",
          iterator_selector: ["items", "list"],
          output_selector: ["ok", "output"],
          start_node_id: "it_start",
        },
        { id: "it_start", type: "iteration-start", parentId: "it" },
        tpl("draft", "item {{ x }}", { x: ["it", "item"] }, { parentId: "it" }),
        { ...review({ timeout: 0 }), parentId: "it" },
        { ...tpl("ok", "{{ x }}={{ n }}", { x: ["it", "item"], n: ["ask", "note"] }), parentId: "it" },
        { id: "end", type: "end", outputs: [{ variable: "all", value_selector: ["it", "output"] }] },
      ],
      edges: [
        ["start", "items"],
        ["items", "it"],
        ["it_start", "draft"],
        ["draft", "ask"],
        ["ask", "approve", "ok"],
        ["ask", "reject", "ok"],
        ["it", "end"],
      ],
    });
    const services = { ...s.services, sandbox: createSandbox() };
    let r = await runWorkflow(wf, { store: s.store, services });
    expect(r.status).toBe("paused");
    expect(r.paused!.map((p) => p.key)).toEqual(["it[0]/ask"]);
    await submitForm(s.forms, r.paused![0]!.form.formId, { action: "approve", inputs: { note: "one" } }, Date.now());
    r = await resumeRun(r.runId, { store: s.store, services });
    expect(r.paused!.map((p) => p.key)).toEqual(["it[1]/ask"]);
    await submitForm(s.forms, r.paused![0]!.form.formId, { action: "reject", inputs: { note: "two" } }, Date.now());
    r = await resumeRun(r.runId, { store: s.store, services });
    expect(r.status).toBe("succeeded");
    expect(r.outputs).toEqual({ all: ["a=one", "b=two"] });
    expect(attemptsOf(r.trace, "items")).toBe(1);
    expect(r.trace.filter((t) => t.key === "it[0]/draft")).toHaveLength(1);
  }, 60_000);

  it("without a form store the node fails with what is missing", async () => {
    const r = await runWorkflow(approvalFlow(), { inputs: { text: "x" } });
    expect(r.status).toBe("failed");
    expect(r.error).toMatchObject({ code: "human_input.no_form_store" });
    expect(r.error?.message).toMatch(/--db/);
  });
});

describe("answering a form", () => {
  async function pausedForm() {
    const s = setup();
    const r = await runWorkflow(approvalFlow(), { inputs: { text: "memo" }, store: s.store, services: s.services });
    return { s, id: r.paused![0]!.form.formId };
  }

  it("refuses what the form does not accept, with a typed error naming the form", async () => {
    const { s, id } = await pausedForm();
    const now = Date.now();
    const refused = async (answer: Parameters<typeof submitForm>[2]) => {
      const e = await submitForm(s.forms, id, answer, now).catch((x: unknown) => x);
      expect(e).toBeInstanceOf(FormError);
      return e as FormError;
    };
    expect((await refused({ action: "maybe", inputs: { note: "x" } })).code).toBe("form.invalid_action");
    expect((await refused({ action: "approve", inputs: {} })).code).toBe("form.missing_input");
    expect((await refused({ action: "approve", inputs: { note: "x", extra: 1 } })).code).toBe("form.unknown_input");
    expect((await refused({ action: "approve", inputs: { note: 5 } })).code).toBe("form.invalid_input");
    await submitForm(s.forms, id, { action: "reject", inputs: { note: "no" } }, now);
    expect((await refused({ action: "approve", inputs: { note: "x" } })).code).toBe("form.submitted");
    expect((await submitForm(s.forms, "nope", { action: "approve", inputs: {} }, now).catch((e) => e)).code).toBe(
      "form.not_found",
    );
  });
});

describe("the human-input node's static rules and DSL", () => {
  it("needs an action; ports are the action ids and __timeout; answer placeholders are no references", () => {
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        review({ user_actions: [], form_content: "{{#$output.nothing#}} {{#start.missing#}}" }),
        { id: "end", type: "end", outputs: [] },
      ],
      edges: [
        ["start", "ask"],
        ["ask", "__timeout", "end"],
      ],
    });
    const codes = analyse(wf, nodeCatalogue).diagnostics.map((d) => d.code);
    expect(codes).toContain("human_input.no_actions");
    expect(codes).toContain("human_input.unknown_placeholder");
    expect(codes).not.toContain("template.malformed_ref");
    const dup = analyse(
      buildWorkflow({
        nodes: [
          { id: "start", type: "start", variables: [] },
          review({ user_actions: [{ id: "go" }, { id: "go" }, { id: "__timeout" }, { id: "9bad" }] }),
          { id: "end", type: "end", outputs: [] },
        ],
        edges: [
          ["start", "ask"],
          ["ask", "go", "end"],
        ],
      }),
      nodeCatalogue,
    ).diagnostics.map((d) => d.code);
    expect(dup).toEqual(
      expect.arrayContaining([
        "human_input.duplicate_action",
        "human_input.reserved_action",
        "human_input.bad_action_id",
      ]),
    );
    const bad = analyse(
      buildWorkflow({
        nodes: [{ id: "start", type: "start", variables: [] }, review(), { id: "end", type: "end", outputs: [] }],
        edges: [
          ["start", "ask"],
          ["ask", "nosuchport", "end"],
        ],
      }),
      nodeCatalogue,
    ).diagnostics;
    expect(bad.some((d) => d.severity === "error" && /nosuchport/.test(d.message))).toBe(true);
  });

  it("imports a Dify human-input export, runs it, and exports it back unchanged in shape", async () => {
    const { workflow } = importDify(fixture);
    const node = workflow.nodes.find((n) => n.type === "human-input")!;
    expect(node.config).toMatchObject({
      timeout: 1,
      timeout_unit: "day",
      user_actions: [{ id: "approve" }, { id: "reject" }],
    });
    expect(analyse(workflow, nodeCatalogue).diagnostics.filter((d) => d.severity === "error")).toEqual([]);
    const s = setup();
    const r = await runWorkflow(workflow, { inputs: { draft: "Hello" }, store: s.store, services: s.services });
    expect(r.paused![0]!.form.content).toBe("Please review the draft:\n\nHello\n\nYour comment: {{#$output.comment#}}");
    expect(r.paused![0]!.form.expiresAt! - r.paused![0]!.form.createdAt).toBe(24 * HOUR);
    await submitForm(
      s.forms,
      r.paused![0]!.form.formId,
      { action: "reject", inputs: { comment: "shorter" } },
      Date.now(),
    );
    expect((await resumeRun(r.runId, { store: s.store, services: s.services })).outputs).toEqual({
      outcome: "changes requested: shorter",
    });
    const yaml = exportDify(workflow);
    expect(yaml).toMatch(/version: 0\.6\.0/);
    const back = importDify(yaml).workflow;
    expect(back.nodes.find((n) => n.type === "human-input")!.config).toEqual(node.config);
    expect(back.edges.map((e) => e.sourcePort).sort()).toEqual(workflow.edges.map((e) => e.sourcePort).sort());
  });
});
