import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CanvasSchema,
  type CozeCanvas,
  CozeExportError,
  type CozeNode,
  exportCoze,
  exportCozeDetailed,
  toCozeFlowFile,
} from "../../src/dsl/coze/index.js";
import { convertJinjaTemplate, wrapPython } from "../../src/dsl/coze/nodes.js";
import { importDify } from "../../src/dsl/dify/index.js";
import { WeftError } from "../../src/ir/errors.js";
import { type Workflow, type WorkflowInput, WorkflowSchema } from "../../src/ir/workflow.js";
import { CORPUS_DIR } from "./corpus.js";

type J = Record<string, any>;

function corpusApp(rel: string): Workflow {
  return importDify(readFileSync(join(CORPUS_DIR, rel), "utf8")).workflow;
}

function walk(nodes: CozeNode[]): CozeNode[] {
  return nodes.flatMap((n) => [n, ...walk(n.blocks ?? [])]);
}

function node(canvas: CozeCanvas, id: string): J {
  const hit = walk(canvas.nodes).find((n) => n.id === id);
  if (!hit) throw new Error(`no node ${id}`);
  return hit as J;
}

function param(list: J[], name: string): J {
  const hit = list.find((p) => p.name === name);
  if (!hit) throw new Error(`no param ${name} in ${list.map((p) => p.name).join(",")}`);
  return hit;
}

const ref = (blockID: string, name: string) => ({ source: "block-output", blockID, name });

/** Corpus apps whose every node Coze can express, with the Coze type ids expected (any order). */
const EXPORTABLE: Array<{ file: string; types: string[] }> = [
  {
    file: "A1sh-4__dify-dsl-generator/skills/dify/assets/workflows/conditional-routing.yml",
    types: ["1", "8", "3", "3", "32", "2"],
  },
  {
    file: "svcvit__Awesome-Dify-Workflow/DSL/translation_workflow.yml",
    types: ["1", "3", "8", "3", "3", "32", "3", "2"],
  },
  {
    file: "svcvit__Awesome-Dify-Workflow/DSL/全书翻译.yml",
    // The iteration's iteration-start has no Coze node: its edge becomes the loop's inline output.
    types: ["1", "5", "21", "3", "3", "3", "3", "15", "2"],
  },
  {
    file: "Akabane71__dify-workflow-cli/docs/examples/enterprise_customer_service_ticket_workflow_http_only.yaml",
    // start, 13 HTTP, 2 intents, 2 knowledge, 5 selectors, 5 LLMs, the merge of 8 ends, the exit.
    types: [
      "1",
      ...Array(13).fill("45"),
      "22",
      "22",
      "6",
      "6",
      ...Array(5).fill("8"),
      ...Array(5).fill("3"),
      "32",
      "2",
    ],
  },
  { file: "wwwzhouhui__dify-for-dsl/dsl/知识库检索工作流.yml", types: ["1", "6", "3", "2"] },
  { file: "svcvit__Awesome-Dify-Workflow/DSL/chart_demo.yml", types: ["1", "45", "5", "2"] },
  { file: "svcvit__Awesome-Dify-Workflow/DSL/春联生成器 (“福”到了版本).yml", types: ["1", "3", "5", "15", "2"] },
  { file: "svcvit__Awesome-Dify-Workflow/DSL/json-repair.yml", types: ["1", "5", "2"] },
];

describe("exportCoze on corpus Dify apps", () => {
  for (const app of EXPORTABLE) {
    it(`exports ${app.file.split("/").pop()} to a canvas the Coze schema accepts`, () => {
      const wf = corpusApp(app.file);
      const { canvas, ids } = exportCozeDetailed(wf);
      const parsed = CanvasSchema.safeParse(JSON.parse(JSON.stringify(canvas)));
      expect(parsed.success, JSON.stringify(parsed.error?.issues?.slice(0, 3))).toBe(true);
      // Every Weft node except iteration-start has a Coze node (ends become the one Exit).
      for (const n of wf.nodes) {
        if (n.type === "iteration-start" || n.type === "end") continue;
        expect(ids[n.id], n.id).toBeDefined();
        expect(walk(canvas.nodes).some((c) => c.id === ids[n.id])).toBe(true);
      }
      if (app.types.length > 1)
        expect(
          walk(canvas.nodes)
            .map((n) => n.type)
            .sort(),
        ).toEqual([...app.types].sort());
      expect(canvas.versions).toEqual({ loop: "v2", batch: "v2" });
    });
  }

  it("conditional-routing: selector ports, LLM refs and params, merge, exit", () => {
    const wf = corpusApp(EXPORTABLE[0]!.file);
    const { canvas, ids } = exportCozeDetailed(wf, { modelTypes: { "GPT-4o": 1737521813 } });
    const start = node(canvas, "100001");
    expect(start.type).toBe("1");
    expect(start.data.outputs).toEqual([
      { name: "user_input", type: "string", required: true, description: "Your input" },
      { name: "input_type", type: "string", required: true, description: "Input type" },
    ]);

    // IF/ELSE -> Selector 8: case "true" -> port "true", else -> "false"; `is` -> operator 1.
    const sel = node(canvas, ids["1718002000002"]!);
    expect(sel.type).toBe("8");
    expect(sel.data.inputs.branches).toEqual([
      {
        condition: {
          logic: 2,
          conditions: [
            {
              operator: 1,
              left: {
                input: {
                  type: "string",
                  value: { type: "ref", content: ref("100001", "input_type"), rawMeta: { type: 1 } },
                },
              },
              right: { input: { type: "string", value: { type: "literal", content: "code", rawMeta: { type: 1 } } } },
            },
          ],
        },
      },
    ]);
    const out = canvas.edges.filter((e) => e.sourceNodeID === sel.id);
    expect(out).toEqual([
      { sourceNodeID: sel.id, targetNodeID: ids["1718002000003"], sourcePortID: "true" },
      { sourceNodeID: sel.id, targetNodeID: ids["1718002000004"], sourcePortID: "false" },
    ]);

    // LLM 3: {{#start.user_input#}} -> inputParameter + {{user_input}}; numbers as strings; modleName (sic).
    const llm = node(canvas, ids["1718002000003"]!);
    expect(llm.type).toBe("3");
    expect(llm.data.version).toBe("3");
    expect(llm.data.inputs.inputParameters).toEqual([
      {
        name: "user_input",
        input: { type: "string", value: { type: "ref", content: ref("100001", "user_input"), rawMeta: { type: 1 } } },
      },
    ]);
    const lp = llm.data.inputs.llmParam as J[];
    expect(param(lp, "prompt").input.value.content).toBe("{{user_input}}");
    expect(param(lp, "systemPrompt").input.value.content).toMatch(/^You are an expert coding assistant/);
    expect(param(lp, "temperature").input).toEqual({
      type: "float",
      value: { type: "literal", content: "0.2", rawMeta: { type: 4 } },
    });
    expect(param(lp, "maxTokens").input.value.content).toBe("4096");
    expect(param(lp, "modleName").input.value.content).toBe("GPT-4o");
    expect(param(lp, "modelType").input).toEqual({
      type: "integer",
      value: { type: "literal", content: "1737521813", rawMeta: { type: 2 } },
    });
    expect(lp.some((p) => p.name === "modelName")).toBe(false);
    for (const p of lp)
      if (p.input.type === "integer" || p.input.type === "float") expect(typeof p.input.value.content).toBe("string");
    expect(llm.data.outputs).toEqual([{ name: "output", type: "string" }]);

    // Aggregator 32: Dify's [llm, text] is Coze's llm `output`.
    const agg = node(canvas, ids["1718002000005"]!);
    expect(agg.type).toBe("32");
    expect(agg.data.inputs.mergeGroups).toEqual([
      {
        name: "output",
        variables: [
          {
            type: "string",
            value: { type: "ref", content: ref(ids["1718002000003"]!, "output"), rawMeta: { type: 1 } },
          },
          {
            type: "string",
            value: { type: "ref", content: ref(ids["1718002000004"]!, "output"), rawMeta: { type: 1 } },
          },
        ],
      },
    ]);

    // End -> Exit 900001 returning variables.
    const exit = node(canvas, "900001");
    expect(exit.type).toBe("2");
    expect(exit.data.inputs).toEqual({
      terminatePlan: "returnVariables",
      inputParameters: [
        {
          name: "output",
          input: { type: "string", value: { type: "ref", content: ref(agg.id, "output"), rawMeta: { type: 1 } } },
        },
      ],
    });
    expect(canvas.edges).toContainEqual({ sourceNodeID: agg.id, targetNodeID: "900001" });
  });

  it("全书翻译: a sequential iteration becomes an array Loop with inline ports and item refs", () => {
    const wf = corpusApp(EXPORTABLE[2]!.file);
    const { canvas, ids } = exportCozeDetailed(wf);
    const loop = node(canvas, ids["1717916955547"]!);
    expect(loop.type).toBe("21");
    expect(loop.meta.canvasPosition).toBeDefined();
    expect(loop.data.inputs.loopType).toBe("array");
    // The iterated list: the code node's array[string] output.
    expect(loop.data.inputs.inputParameters).toEqual([
      {
        name: "item",
        input: {
          type: "list",
          schema: { type: "string" },
          value: { type: "ref", content: ref(ids["1717916867969"]!, "chunks"), rawMeta: { type: 99 } },
        },
      },
    ]);
    // Output: the last body LLM's text per item.
    expect(loop.data.outputs).toEqual([
      {
        name: "output",
        input: {
          type: "list",
          schema: { type: "string" },
          value: { type: "ref", content: ref(ids["1717916991709"]!, "output"), rawMeta: { type: 1 } },
        },
      },
    ]);
    const body = (loop.blocks as J[]).map((b) => b.id).sort();
    expect(body).toEqual(
      [ids["1717916961837"], ids["1717916977413"], ids["1717916984996"], ids["1717916991709"]].sort(),
    );
    expect(loop.edges).toContainEqual({
      sourceNodeID: loop.id,
      targetNodeID: ids["1717916961837"],
      sourcePortID: "loop-function-inline-output",
    });
    expect(loop.edges).toContainEqual({
      sourceNodeID: ids["1717916991709"],
      targetNodeID: loop.id,
      targetPortID: "loop-function-inline-input",
    });
    // Inner LLM reads the current item from the loop itself.
    const first = node(canvas, ids["1717916961837"]!);
    expect(param(first.data.inputs.inputParameters, "item").input.value.content).toEqual(ref(loop.id, "item"));
    // Leaving the loop goes through loop-output; no top-level edge touches a body node.
    expect(canvas.edges).toContainEqual({
      sourceNodeID: loop.id,
      targetNodeID: ids["1717917057450"],
      sourcePortID: "loop-output",
    });
    for (const e of canvas.edges) expect(body).not.toContain(e.sourceNodeID);

    // {{ translated_text | join(' ') }} -> text concat with arrayItemConcatChar " ".
    const text = node(canvas, ids["1717917057450"]!);
    expect(text.type).toBe("15");
    expect(text.data.inputs.method).toBe("concat");
    expect(param(text.data.inputs.concatParams, "concatResult").input.value.content).toBe("{{translated_text}}");
    expect(param(text.data.inputs.concatParams, "arrayItemConcatChar").input.value.content).toBe(" ");
    expect(param(text.data.inputs.inputParameters, "translated_text").input.value.content).toEqual(
      ref(loop.id, "output"),
    );
  });

  it("enterprise ticket workflow: intent branches, knowledge, several ends merged into one Exit", () => {
    const wf = corpusApp(EXPORTABLE[3]!.file);
    const { canvas, ids, notes } = exportCozeDetailed(wf);
    const intent = node(canvas, ids.intent_classifier_node!);
    expect(intent.type).toBe("22");
    expect(intent.data.inputs.intents.map((i: J) => i.name)).toEqual(["咨询类", "订单类", "故障类", "投诉类"]);
    expect(intent.data.inputs.llmParam.prompt.value.content).toBe("{{query}}");
    expect(intent.data.outputs.map((o: J) => o.name)).toEqual(["classificationId", "reason"]);
    const ports = canvas.edges.filter((e) => e.sourceNodeID === intent.id).map((e) => [e.sourcePortID, e.targetNodeID]);
    expect(ports).toEqual([
      ["branch_0", ids.consult_kb_node],
      // No intent matched: Dify falls back to the first class, so Coze's default port goes there too.
      ["default", ids.consult_kb_node],
      ["branch_1", ids.order_api_node],
      ["branch_2", ids.fault_extract_node],
      ["branch_3", ids.complaint_risk_node],
    ]);
    const kb = node(canvas, ids.consult_kb_node!);
    expect(kb.type).toBe("6");
    expect(param(kb.data.inputs.datasetParam, "datasetList").input.value.content).toEqual(["kb_enterprise_cs"]);
    expect(notes.some((n) => n.includes("kb_enterprise_cs"))).toBe(true);

    // Eight Dify end nodes: one Exit fed by a Variable merge whose values are ordered so the branch
    // that ran wins (the always-present start value last).
    const exits = walk(canvas.nodes).filter((n) => n.type === "2");
    expect(exits.map((n) => n.id)).toEqual(["900001"]);
    const merge = walk(canvas.nodes).find((n) => n.type === "32") as J;
    const vars = merge.data.inputs.mergeGroups[0].variables as J[];
    expect(vars.at(-1)!.value.content).toEqual(ref("100001", "query"));
    expect(new Set(vars.map((v) => JSON.stringify(v))).size).toBe(vars.length);
    expect(canvas.edges).toContainEqual({ sourceNodeID: merge.id, targetNodeID: "900001" });
    for (const end of wf.nodes.filter((n) => n.type === "end")) expect(ids[end.id]).toBeUndefined();
  });

  it("a chatflow's single final answer becomes an Exit answering with content; sys.query is USER_INPUT", () => {
    const wf = corpusApp("wwwzhouhui__dify-for-dsl/dsl/知识库检索工作流.yml");
    const canvas = exportCoze(wf);
    const start = node(canvas, "100001");
    expect(start.data.outputs.slice(0, 2).map((o: J) => o.name)).toEqual(["USER_INPUT", "CONVERSATION_NAME"]);
    const exit = node(canvas, "900001");
    expect(exit.data.inputs.terminatePlan).toBe("useAnswerContent");
    expect(exit.data.inputs.streamingOutput).toBe(true);
    expect(exit.data.inputs.content.value.content).toBe("{{text}}");
    const llm = walk(canvas.nodes).find((n) => n.type === "3") as J;
    expect(param(exit.data.inputs.inputParameters, "text").input.value.content).toEqual(ref(llm.id, "output"));
    // The knowledge node feeds the LLM's {{#context#}}; the user query reaches the prompt as USER_INPUT.
    const kb = walk(canvas.nodes).find((n) => n.type === "6") as J;
    expect(param(llm.data.inputs.inputParameters, "context").input.value.content).toEqual(ref(kb.id, "outputList"));
    expect(param(kb.data.inputs.inputParameters, "Query").input.value.content).toEqual(ref("100001", "USER_INPUT"));
  });

  it("keeps the CLI's signature: exportCoze returns the canvas object", () => {
    const canvas = exportCoze(corpusApp(EXPORTABLE[7]!.file));
    expect(Array.isArray(canvas.nodes)).toBe(true);
    expect(CanvasSchema.safeParse(JSON.parse(JSON.stringify(canvas))).success).toBe(true);
  });
});

// ------------------------------------------------------------------------------------------------

function wf(input: Partial<WorkflowInput> & Pick<WorkflowInput, "nodes" | "edges">): Workflow {
  return WorkflowSchema.parse({ mode: "workflow", ...input });
}

const START = {
  id: "start",
  type: "start",
  title: "Start",
  config: { variables: [{ variable: "q", type: "text-input", required: true }] },
};
const endOf = (sel: string[]) => ({
  id: "end",
  type: "end",
  title: "End",
  config: { outputs: [{ variable: "out", value_selector: sel }] },
});

function exportError(w: Workflow): CozeExportError {
  try {
    exportCoze(w);
  } catch (e) {
    expect(e).toBeInstanceOf(CozeExportError);
    expect(e).toBeInstanceOf(WeftError);
    return e as CozeExportError;
  }
  throw new Error("expected a CozeExportError");
}

describe("nodes Coze cannot express", () => {
  it("names every unsupported node, its type and why, in one typed error", () => {
    const w = wf({
      nodes: [
        START,
        {
          id: "js",
          type: "code",
          title: "JS",
          config: {
            code_language: "javascript",
            code: "function main({q}) { return {r: q} }",
            variables: [{ variable: "q", value_selector: ["start", "q"] }],
            outputs: { r: { type: "string" } },
          },
        },
        { id: "lo", type: "list-operator", title: "List op", config: { variable: ["start", "q"] } },
        { id: "doc", type: "document-extractor", title: "Docs", config: { variable_selector: ["start", "q"] } },
        {
          id: "tool",
          type: "tool",
          title: "Search",
          config: { provider_id: "tavily", tool_name: "search", tool_parameters: {} },
        },
        endOf(["js", "r"]),
      ],
      edges: [
        { source: "start", target: "js" },
        { source: "js", target: "lo" },
        { source: "lo", target: "doc" },
        { source: "doc", target: "tool" },
        { source: "tool", target: "end" },
      ],
    });
    const err = exportError(w);
    expect(err.code).toBe("coze.unsupported_node");
    const byId = Object.fromEntries(err.problems.map((p) => [p.nodeId, p]));
    expect(Object.keys(byId).sort()).toEqual(["doc", "js", "lo", "tool"]);
    expect(byId.js).toMatchObject({ nodeType: "code", title: "JS" });
    expect(byId.js!.reason).toMatch(/only runs Python/);
    expect(byId.lo!.reason).toMatch(/list operator/);
    expect(byId.doc!.reason).toMatch(/document extractor/);
    expect(byId.tool!.reason).toMatch(/plugin/);
    for (const id of ["js", "lo", "doc", "tool"]) expect(err.message).toContain(`(${id})`);
    expect(err.toJSON()).toMatchObject({ code: "coze.unsupported_node" });
  });

  it("refuses references to outputs Coze does not have", () => {
    const w = wf({
      nodes: [
        START,
        {
          id: "llm",
          type: "llm",
          title: "LLM",
          config: {
            model: { provider: "openai", name: "gpt-4o" },
            prompt_template: [{ role: "user", text: "{{#start.q#}}" }],
          },
        },
        endOf(["llm", "usage"]),
      ],
      edges: [
        { source: "start", target: "llm" },
        { source: "llm", target: "end" },
      ],
    });
    const err = exportError(w);
    expect(err.problems).toEqual([
      expect.objectContaining({ nodeId: "end", reason: expect.stringMatching(/token usage/) }),
    ]);
  });

  it("refuses env variables, assistant few-shot messages and Jinja prompts", () => {
    const w = wf({
      environment_variables: [{ name: "key", value_type: "string", value: "x" }],
      nodes: [
        START,
        {
          id: "llm",
          type: "llm",
          title: "LLM",
          config: {
            model: { provider: "openai", name: "gpt-4o" },
            prompt_template: [
              { role: "system", text: "key {{#env.key#}}" },
              { role: "user", text: "{{#start.q#}}" },
              { role: "assistant", text: "ok" },
            ],
          },
        },
        {
          id: "llm2",
          type: "llm",
          title: "LLM2",
          config: {
            model: { provider: "openai", name: "gpt-4o" },
            prompt_template: [{ role: "user", text: "{{ q }}", edition_type: "jinja2", jinja2_text: "{{ q }}" }],
          },
        },
        endOf(["llm", "text"]),
      ],
      edges: [
        { source: "start", target: "llm" },
        { source: "llm", target: "llm2" },
        { source: "llm2", target: "end" },
      ],
    });
    const reasons = exportError(w).problems.map((p) => `${p.nodeId}: ${p.reason}`);
    expect(reasons).toEqual([
      expect.stringMatching(/^llm: env variables/),
      expect.stringMatching(/^llm2: .*Jinja2 prompt/),
    ]);
  });

  it("refuses two ends whose values can both exist (a merge would pick the wrong one)", () => {
    const llm = (id: string) => ({
      id,
      type: "llm",
      title: id,
      config: { model: { provider: "o", name: "m" }, prompt_template: [{ role: "user", text: "{{#start.q#}}" }] },
    });
    const w = wf({
      nodes: [
        START,
        llm("a"),
        llm("b"),
        {
          id: "end1",
          type: "end",
          title: "E1",
          config: { outputs: [{ variable: "out", value_selector: ["a", "text"] }] },
        },
        {
          id: "end2",
          type: "end",
          title: "E2",
          config: { outputs: [{ variable: "out", value_selector: ["b", "text"] }] },
        },
      ],
      // a runs before both ends, so a's value exists when end2 is reached.
      edges: [
        { source: "start", target: "a" },
        { source: "a", target: "b" },
        { source: "a", target: "end1" },
        { source: "b", target: "end2" },
      ],
    });
    const err = exportError(w);
    expect(err.problems).toEqual([
      expect.objectContaining({ nodeId: "end2", reason: expect.stringMatching(/wrong one/) }),
    ]);
  });

  it("refuses Dify loops and iteration modes Coze lacks", () => {
    const w = wf({
      nodes: [
        { ...START, config: { variables: [{ variable: "xs", type: "array[string]" }] } },
        {
          id: "loop",
          type: "loop",
          title: "Loop",
          config: { loop_count: 3, break_conditions: [], start_node_id: "ls" },
        },
        { id: "ls", type: "loop-start", title: "", parentId: "loop", config: {} },
        {
          id: "it",
          type: "iteration",
          title: "It",
          config: {
            iterator_selector: ["start", "xs"],
            output_selector: ["t", "output"],
            start_node_id: "its",
            error_handle_mode: "continue-on-error",
          },
        },
        { id: "its", type: "iteration-start", title: "", parentId: "it", config: {} },
        {
          id: "t",
          type: "template-transform",
          title: "T",
          parentId: "it",
          config: { template: "{{ x }}", variables: [{ variable: "x", value_selector: ["it", "item"] }] },
        },
        endOf(["it", "output"]),
      ],
      edges: [
        { source: "start", target: "loop" },
        { source: "loop", target: "it" },
        { source: "its", target: "t" },
        { source: "it", target: "end" },
      ],
    });
    const ids = exportError(w).problems.map((p) => p.nodeId);
    expect(ids).toEqual(["loop", "ls", "it"]);
  });
});

describe("supported shapes in detail", () => {
  it("a parallel iteration becomes a Batch with batch ports", () => {
    const w = wf({
      nodes: [
        { ...START, config: { variables: [{ variable: "xs", type: "array[string]", required: true }] } },
        {
          id: "it",
          type: "iteration",
          title: "It",
          config: {
            iterator_selector: ["start", "xs"],
            output_selector: ["t", "output"],
            is_parallel: true,
            parallel_nums: 4,
            start_node_id: "its",
          },
        },
        { id: "its", type: "iteration-start", title: "", parentId: "it", config: {} },
        {
          id: "t",
          type: "template-transform",
          title: "T",
          parentId: "it",
          config: { template: "<{{ x }}>\n", variables: [{ variable: "x", value_selector: ["it", "item"] }] },
        },
        endOf(["it", "output"]),
      ],
      edges: [
        { source: "start", target: "it" },
        { source: "its", target: "t" },
        { source: "it", target: "end" },
      ],
    });
    const { canvas, ids } = exportCozeDetailed(w);
    const batch = node(canvas, ids.it!);
    expect(batch.type).toBe("28");
    expect(batch.data.inputs.concurrentSize).toEqual({ type: "integer", value: { type: "literal", content: "4" } });
    expect(batch.edges).toEqual([
      { sourceNodeID: batch.id, targetNodeID: ids.t, sourcePortID: "batch-function-inline-output" },
      { sourceNodeID: ids.t, targetNodeID: batch.id, targetPortID: "batch-function-inline-input" },
    ]);
    expect(canvas.edges).toContainEqual({
      sourceNodeID: batch.id,
      targetNodeID: "900001",
      sourcePortID: "batch-output",
    });
    const t = node(canvas, ids.t!);
    // Jinja's trailing newline is dropped, as Jinja does.
    expect(param(t.data.inputs.concatParams, "concatResult").input.value.content).toBe("<{{x}}>");
    expect(param(t.data.inputs.inputParameters, "x").input.value.content).toEqual(ref(batch.id, "item"));
    expect(param(node(canvas, "900001").data.inputs.inputParameters, "out").input).toMatchObject({
      type: "list",
      schema: { type: "string" },
    });
  });

  it("fail-branch error handling -> settingOnError processType 3 with default / branch_error ports", () => {
    const w = wf({
      nodes: [
        START,
        {
          id: "http",
          type: "http-request",
          title: "HTTP",
          config: {
            method: "post",
            url: "https://api.example.com/x?q={{#start.q#}}",
            headers: "Content-Type: application/json\nX-Q: {{#start.q#}}",
            params: "",
            body: { type: "json", data: [{ type: "text", value: '{"q": "{{#start.q#}}"}' }] },
            error_strategy: "fail-branch",
            retry_config: { retry_enabled: true, max_retries: 2, retry_interval: 100 },
          },
        },
        {
          id: "explain",
          type: "llm",
          title: "Explain",
          config: {
            model: { provider: "o", name: "m" },
            prompt_template: [{ role: "user", text: "Explain: {{#http.error_message#}}" }],
          },
        },
        {
          id: "ok",
          type: "end",
          title: "ok",
          config: { outputs: [{ variable: "out", value_selector: ["http", "body"] }] },
        },
        {
          id: "bad",
          type: "end",
          title: "bad",
          config: { outputs: [{ variable: "out", value_selector: ["explain", "text"] }] },
        },
      ],
      edges: [
        { source: "start", target: "http" },
        { source: "http", target: "ok" },
        { source: "http", sourcePort: "fail-branch", target: "explain" },
        { source: "explain", target: "bad" },
      ],
    });
    const { canvas, ids } = exportCozeDetailed(w);
    const http = node(canvas, ids.http!);
    expect(http.type).toBe("45");
    expect(http.data.inputs.apiInfo).toEqual({
      method: "POST",
      url: "https://api.example.com/x?q={{block_output_100001.q}}",
    });
    expect(http.data.inputs.body).toEqual({
      bodyType: "JSON",
      bodyData: { json: '{"q": "{{block_output_100001.q}}"}' },
    });
    expect(http.data.inputs.headers).toEqual([
      {
        name: "Content-Type",
        input: { type: "string", value: { type: "literal", content: "application/json", rawMeta: { type: 1 } } },
      },
      {
        name: "X-Q",
        input: { type: "string", value: { type: "ref", content: ref("100001", "q"), rawMeta: { type: 1 } } },
      },
    ]);
    expect(http.data.inputs.settingOnError).toMatchObject({ switch: true, processType: 3, retryTimes: 2 });
    expect(http.data.outputs.map((o: J) => o.name)).toEqual([
      "body",
      "statusCode",
      "headers",
      "errorBody",
      "isSuccess",
    ]);
    const explain = node(canvas, ids.explain!);
    expect(param(explain.data.inputs.inputParameters, "error_message").input.value.content).toEqual(
      ref(http.id, "errorBody.errorMessage"),
    );
    const merge = walk(canvas.nodes).find((n) => n.type === "32") as J;
    expect(canvas.edges).toContainEqual({ sourceNodeID: http.id, targetNodeID: merge.id, sourcePortID: "default" });
    expect(canvas.edges).toContainEqual({
      sourceNodeID: http.id,
      targetNodeID: explain.id,
      sourcePortID: "branch_error",
    });
    // The fail-branch value first: it only exists when that branch ran; the HTTP body last.
    expect(merge.data.inputs.mergeGroups[0].variables.map((v: J) => v.value.content)).toEqual([
      ref(explain.id, "output"),
      ref(http.id, "body"),
    ]);
  });

  it("refuses merging ends when one end's value also exists on the other's path", () => {
    const w = wf({
      nodes: [
        START,
        {
          id: "http",
          type: "http-request",
          title: "HTTP",
          config: { method: "get", url: "https://x", error_strategy: "fail-branch" },
        },
        {
          id: "ok",
          type: "end",
          title: "ok",
          config: { outputs: [{ variable: "out", value_selector: ["http", "body"] }] },
        },
        {
          id: "bad",
          type: "end",
          title: "bad",
          config: { outputs: [{ variable: "out", value_selector: ["http", "error_message"] }] },
        },
      ],
      edges: [
        { source: "start", target: "http" },
        { source: "http", target: "ok" },
        { source: "http", sourcePort: "fail-branch", target: "bad" },
      ],
    });
    expect(exportError(w).problems.map((p) => p.nodeId)).toEqual(["bad"]);
  });

  it("several answers in a chatflow become Message nodes before a plain Exit", () => {
    const w = wf({
      mode: "advanced-chat",
      nodes: [
        { id: "start", type: "start", title: "Start", config: { variables: [] } },
        { id: "a1", type: "answer", title: "A1", config: { answer: "Hello {{#sys.query#}}" } },
        { id: "a2", type: "answer", title: "A2", config: { answer: "Bye" } },
      ],
      edges: [
        { source: "start", target: "a1" },
        { source: "a1", target: "a2" },
      ],
    });
    const { canvas, ids } = exportCozeDetailed(w);
    const a1 = node(canvas, ids.a1!);
    expect(a1.type).toBe("13");
    expect(a1.data.inputs.content.value.content).toBe("Hello {{query}}");
    expect(a1.data.inputs.inputParameters[0].input.value.content).toEqual(ref("100001", "USER_INPUT"));
    expect(node(canvas, "900001").data.inputs).toEqual({ terminatePlan: "returnVariables", inputParameters: [] });
    expect(canvas.edges).toContainEqual({ sourceNodeID: ids.a2, targetNodeID: "900001" });
  });

  it("a classifier's class ids map to branch_i ports; class_name cannot be read", () => {
    const base = {
      nodes: [
        START,
        {
          id: "qc",
          type: "question-classifier",
          title: "QC",
          config: {
            query_variable_selector: ["start", "q"],
            model: { provider: "o", name: "m", completion_params: {} },
            classes: [
              { id: "c1", name: "billing" },
              { id: "c2", name: "tech" },
            ],
            instruction: "Classify {{#start.q#}} carefully",
          },
        },
        {
          id: "e1",
          type: "end",
          title: "E1",
          config: { outputs: [{ variable: "out", value_selector: ["start", "q"] }] },
        },
      ],
      edges: [
        { source: "start", target: "qc" },
        { source: "qc", sourcePort: "c1", target: "e1" },
        { source: "qc", sourcePort: "c2", target: "e1" },
      ],
    };
    const { canvas, ids } = exportCozeDetailed(wf(base));
    const qc = node(canvas, ids.qc!);
    expect(qc.data.inputs.llmParam.systemPrompt.value.content).toBe("Classify {{query}} carefully");
    expect(qc.data.inputs.inputParameters).toHaveLength(1);
    expect(canvas.edges.filter((e) => e.sourceNodeID === qc.id).map((e) => e.sourcePortID)).toEqual([
      "branch_0",
      "default",
      "branch_1",
    ]);

    const bad = wf({
      ...base,
      nodes: [
        ...base.nodes.slice(0, 2),
        { ...base.nodes[2]!, config: { outputs: [{ variable: "out", value_selector: ["qc", "class_name"] }] } },
      ],
    });
    expect(exportError(bad).problems[0]!.reason).toMatch(/classificationId/);
  });
});

describe("Jinja2 template conversion", () => {
  const vars = new Map<string, any>([
    ["a", "string"],
    ["xs", "array[string]"],
    ["n", "number"],
  ]);
  it("converts plain variables and joins", () => {
    expect(convertJinjaTemplate("{{ a }} and {{a}}", vars)).toEqual({ text: "{{a}} and {{a}}" });
    expect(convertJinjaTemplate('{{ xs | join("\\n---\\n") }}', vars)).toEqual({
      text: "{{xs}}",
      separator: "\n---\n",
    });
  });
  it.each([
    ["{% for x in xs %}{{ x }}{% endfor %}", /statements/],
    ["{{ a | upper }}", /more than a variable/],
    ["{{ a.b }}", /more than a variable/],
    ["{{- a }}", /more than a variable/],
    ["{{ n }}", /only strings/],
    ["{{ xs }}", /only strings/],
    ["{{ n | join(',') }}", /join over a number/],
    ["{{ xs | join(',') }}{{ xs | join(';') }}", /different separators/],
    ["{{ zz }}", /not one of its variables/],
  ])("refuses %s", (tpl, why) => {
    expect(() => convertJinjaTemplate(tpl, vars)).toThrow(why);
  });
});

describe("Python code wrapper", () => {
  const hasPython = (() => {
    try {
      execFileSync("python3", ["--version"]);
      return true;
    } catch {
      return false;
    }
  })();

  it.skipIf(!hasPython)("calls the Dify main with the Coze params and returns its dict", () => {
    const dify = "import json\n\ndef main(a: str, b: int) -> dict:\n    return {'r': a * b, 'j': json.dumps([a])}\n";
    const wrapped = wrapPython(dify, ["a", "b"]);
    expect(wrapped).toMatch(/^async def main\(args: Args\) -> Output:$/m);
    // Run it the way Coze does: Args/Output injected, the async main awaited.
    const harness = [
      "import asyncio, json",
      "class Args:",
      "    def __init__(self, params): self.params = params",
      "Output = dict",
      wrapped,
      "print(json.dumps(asyncio.run(main(Args({'a': 'x', 'b': 3})))))",
    ].join("\n");
    const dir = mkdtempSync(join(tmpdir(), "coze-py-"));
    const file = join(dir, "run.py");
    writeFileSync(file, harness);
    const out = JSON.parse(execFileSync("python3", [file], { encoding: "utf8" }));
    expect(out).toEqual({ r: "xxx", j: '["x"]' });
  });

  it("refuses code without a top-level main", () => {
    expect(() => wrapPython("def helper():\n    pass\n", [])).toThrow(/def main/);
  });
});

describe("Coze Studio load file", () => {
  it("wraps a canvas with the export-data type and bounds that put nodes at their positions", () => {
    const w = corpusApp(EXPORTABLE[2]!.file);
    const canvas = exportCoze(w);
    const file = toCozeFlowFile(canvas, w.mode);
    expect(file.type).toBe("coze-workflow-export-data");
    expect(file.source).toEqual({ workflowId: "", flowMode: 0, spaceId: "", host: "", isDouyin: false });
    expect(file.json.edges).toBe(canvas.edges);
    const check = (nodes: J[], originals: CozeNode[]) => {
      nodes.forEach((n, i) => {
        const b = n._temp.bounds;
        // The loader places a node at (bounds centre x, bounds top).
        expect({ x: b.x + b.width / 2, y: b.y }).toEqual(originals[i]!.meta.position);
        if (n.blocks) check(n.blocks, originals[i]!.blocks ?? []);
      });
    };
    check(file.json.nodes as J[], canvas.nodes);
    expect(file.json.nodes.some((n) => (n.blocks ?? []).length > 0)).toBe(true);
    // The wrapped nodes are still valid canvas nodes.
    expect(CanvasSchema.safeParse(JSON.parse(JSON.stringify(file.json))).success).toBe(true);
    expect(toCozeFlowFile(canvas, "advanced-chat").source.flowMode).toBe(3);
  });
});

describe("the whole Dify corpus", () => {
  it("every app either exports to a schema-valid canvas or fails with the typed error naming nodes", async () => {
    const { corpusFiles } = await import("./corpus.js");
    let exported = 0;
    let refused = 0;
    for (const rel of corpusFiles()) {
      const w = corpusApp(rel);
      try {
        const canvas = exportCoze(w);
        const r = CanvasSchema.safeParse(JSON.parse(JSON.stringify(canvas)));
        expect(r.success, rel).toBe(true);
        exported++;
      } catch (e) {
        expect(e, rel).toBeInstanceOf(CozeExportError);
        const err = e as CozeExportError;
        expect(err.code, rel).toBe("coze.unsupported_node");
        expect(err.problems.length, rel).toBeGreaterThan(0);
        for (const p of err.problems) expect(p.reason.length).toBeGreaterThan(0);
        refused++;
      }
    }
    expect(exported + refused).toBe(163);
    // Most real apps use Dify tools, JavaScript code or conversation variables; these are the exact ones.
    expect(exported).toBeGreaterThanOrEqual(36);
  });
});
