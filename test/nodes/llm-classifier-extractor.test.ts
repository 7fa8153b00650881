import { describe, expect, it } from "vitest";
import { NotConfiguredError } from "../../src/ir/errors.js";
import { paramType, transformResult } from "../../src/nodes/parameter-extractor.js";
import { describe_, makeNode, rulesOf, run, ScriptedLlm } from "./llm-fakes.js";

const model = { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: {} };

function qc(config: Record<string, unknown> = {}) {
  return makeNode("qc", "question-classifier", {
    model,
    query_variable_selector: ["start", "q"],
    classes: [
      { id: "1", name: "Refund" },
      { id: "2", name: "Shipping" },
      { id: "1720796069925", name: "Other", label: "Misc" },
    ],
    instruction: "Decide by {{#start.topic#}}",
    vision: { enabled: false },
    ...config,
  });
}

describe("question-classifier", () => {
  it("ports are the class ids; inputs are the query and template references", () => {
    const d = describe_(qc());
    expect(d.ports).toEqual(["1", "2", "1720796069925"]);
    expect(d.inputs.map((i) => i.selector.join("."))).toEqual(["start.q", "start.topic"]);
    expect(d.inputs[0]).toMatchObject({ expects: "string" });
    expect(d.outputs.map((o) => o.name)).toEqual(["class_name", "class_id", "class_label", "usage"]);
  });

  it("rules: no classes, duplicate ids", () => {
    const codes = (n: ReturnType<typeof qc>) => rulesOf(n).map((d) => d.code);
    expect(codes(qc({ classes: [] }))).toContain("question_classifier.no_classes");
    expect(
      codes(
        qc({
          classes: [
            { id: "1", name: "a" },
            { id: "1", name: "b" },
          ],
        }),
      ),
    ).toContain("question_classifier.duplicate_id");
    expect(codes(qc())).toEqual([]);
  });

  it("asks for {category_id, category_name} and routes to the chosen class", async () => {
    const fake = new ScriptedLlm([
      { text: '```json\n{"keywords": ["parcel"], "category_id": "2", "category_name": "Shipping"}\n```' },
    ]);
    const res = await run(qc(), { start: { q: "Where is my parcel?", topic: "logistics" } }, { llm: fake });
    expect(res.port).toBe("2");
    expect(res.outputs).toEqual({
      class_name: "Shipping",
      class_id: "2",
      class_label: "CLASS 2",
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
    const req = fake.requests[0]!;
    expect(req.json?.schema).toMatchObject({ required: ["category_id", "category_name"] });
    const user = req.messages.find((m) => m.role === "user")!;
    const body = JSON.parse(user.content as string);
    expect(body).toEqual({
      input_text: "Where is my parcel?",
      categories: [
        { category_id: "1", category_name: "Refund" },
        { category_id: "2", category_name: "Shipping" },
        { category_id: "1720796069925", category_name: "Other" },
      ],
      classification_instructions: ["Decide by logistics"],
    });
  });

  it("uses the class label when given", async () => {
    const fake = new ScriptedLlm([{ text: '{"category_id": "1720796069925", "category_name": "Other"}' }]);
    const res = await run(qc(), { start: { q: "hm" } }, { llm: fake });
    expect(res.outputs.class_label).toBe("Misc");
    expect(res.port).toBe("1720796069925");
  });

  it("falls back to the first class on unparseable or unknown answers", async () => {
    const fake = new ScriptedLlm([
      { text: "I think it is about money" },
      { text: '{"category_id": "99", "category_name": "Nope"}' },
    ]);
    const a = await run(qc(), { start: { q: "x" } }, { llm: fake });
    expect(a.port).toBe("1");
    expect(a.outputs.class_name).toBe("Refund");
    expect(a.meta?.fellBack).toBe(true);
    const b = await run(qc(), { start: { q: "x" } }, { llm: fake });
    expect(b.port).toBe("1");
  });

  it("legacy `instructions` is read when `instruction` is empty", async () => {
    const fake = new ScriptedLlm([{ text: '{"category_id": "1", "category_name": "Refund"}' }]);
    await run(qc({ instruction: "", instructions: "old style", topics: [] }), { start: { q: "x" } }, { llm: fake });
    const body = JSON.parse(fake.requests[0]!.messages[1]!.content as string);
    expect(body.classification_instructions).toEqual(["old style"]);
  });

  it("needs an LLM service", async () => {
    await expect(run(qc(), { start: { q: "x" } })).rejects.toBeInstanceOf(NotConfiguredError);
  });
});

function pe(config: Record<string, unknown> = {}) {
  return makeNode("pe", "parameter-extractor", {
    model,
    query: ["start", "text"],
    instruction: "Extract from {{#start.lang#}} text",
    reasoning_mode: "prompt",
    parameters: [
      { name: "city", type: "string", description: "city", required: true },
      { name: "days", type: "number", description: "days", required: false },
      { name: "urgent", type: "bool", description: "urgent?", required: false },
      { name: "tags", type: "array[string]", description: "tags", required: false },
    ],
    ...config,
  });
}

describe("parameter-extractor", () => {
  it("outputs each parameter with its (legacy-mapped) type plus the reserved outputs", () => {
    const d = describe_(pe());
    expect(d.outputs.map((o) => `${o.name}:${o.type}`)).toEqual([
      "city:string",
      "days:number",
      "urgent:boolean",
      "tags:array[string]",
      "__is_success:number",
      "__reason:string",
      "__usage:object",
    ]);
    expect(d.inputs.map((i) => i.selector.join("."))).toEqual(["start.text", "start.lang"]);
    expect(paramType("select")).toBe("string");
  });

  it("rules: reserved names, invalid types, duplicates", () => {
    const codes = rulesOf(
      pe({
        parameters: [
          { name: "__reason", type: "string", required: false },
          { name: "x", type: "date", required: false },
          { name: "y", type: "string", required: false },
          { name: "y", type: "string", required: false },
        ],
      }),
    ).map((d) => d.code);
    expect(codes).toEqual(
      expect.arrayContaining([
        "parameter_extractor.reserved_name",
        "parameter_extractor.invalid_type",
        "parameter_extractor.duplicate_name",
      ]),
    );
    expect(rulesOf(pe()).map((d) => d.code)).toEqual([]);
  });

  it("prompt mode: parses the JSON answer and coerces types", async () => {
    const fake = new ScriptedLlm([{ text: 'Sure: {"city": "Lyon", "days": 3, "urgent": true, "tags": ["a", "b"]}' }]);
    const res = await run(pe(), { start: { text: "3 days in Lyon, urgent", lang: "French" } }, { llm: fake });
    expect(res.outputs).toMatchObject({
      city: "Lyon",
      days: 3,
      urgent: true,
      tags: ["a", "b"],
      __is_success: 1,
      __reason: null,
    });
    expect(fake.requests[0]!.tools).toBeUndefined();
    expect(fake.requests[0]!.messages[0]!.content).toContain("Extract from French text");
    expect(fake.requests[0]!.messages[1]!.content).toContain("3 days in Lyon");
  });

  it("function_call mode (also the default for an empty mode) reads the tool call", async () => {
    const fake = new ScriptedLlm([
      {
        toolCalls: [
          { id: "c1", name: "extract_parameters", arguments: { city: "Oslo", days: "4", urgent: false, tags: [] } },
        ],
      },
    ]);
    const res = await run(pe({ reasoning_mode: "" }), { start: { text: "Oslo for 4 days" } }, { llm: fake });
    const tools = fake.requests[0]!.tools!;
    expect(tools[0]!.name).toBe("extract_parameters");
    expect(tools[0]!.parameters).toMatchObject({
      type: "object",
      properties: {
        city: { type: "string" },
        days: { type: "number" },
        urgent: { type: "boolean" },
        tags: { type: "array", items: { type: "string" } },
      },
      required: ["city"],
    });
    // "4" is not a number, so validation fails, but the value is still coerced.
    expect(res.outputs).toMatchObject({ city: "Oslo", days: 4, urgent: false, tags: [], __is_success: 0 });
    expect(res.outputs.__reason).toContain("days");
  });

  it("a failed extraction still succeeds with type defaults and __is_success 0", async () => {
    const fake = new ScriptedLlm([{ text: "I cannot help with that." }]);
    const res = await run(pe(), { start: { text: "??" } }, { llm: fake });
    expect(res.outputs).toEqual({
      city: "",
      days: 0,
      urgent: false,
      tags: [],
      __is_success: 0,
      __reason: "Failed to extract result from function call or text response, using empty result.",
      __usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    });
  });

  it("missing required parameter and wrong count are reported in __reason", async () => {
    const fake = new ScriptedLlm([{ text: '{"days": 1, "urgent": true, "tags": []}' }]);
    const res = await run(pe(), { start: { text: "x" } }, { llm: fake });
    expect(res.outputs.__is_success).toBe(0);
    expect(res.outputs.__reason).toBe("Invalid number of parameters");
    expect(res.outputs.city).toBe("");
  });

  it("select options are enforced", async () => {
    const node = pe({
      parameters: [{ name: "size", type: "select", options: ["S", "M"], description: "", required: true }],
    });
    const fake = new ScriptedLlm([{ text: '{"size": "XL"}' }, { text: '{"size": "M"}' }]);
    const bad = await run(node, { start: { text: "x" } }, { llm: fake });
    expect(bad.outputs).toMatchObject({ size: "XL", __is_success: 0 });
    const good = await run(node, { start: { text: "x" } }, { llm: fake });
    expect(good.outputs).toMatchObject({ size: "M", __is_success: 1 });
  });

  it("transformResult follows Dify's coercions", () => {
    const params = [
      { name: "n", type: "number", required: false },
      { name: "b", type: "boolean", required: false },
      { name: "ns", type: "array[number]", required: false },
      { name: "o", type: "array[object]", required: false },
    ];
    expect(transformResult(params, { n: "2.5", b: 1, ns: [1, "2", "x", true], o: [{ a: 1 }, 3] })).toEqual({
      n: 2.5,
      b: true,
      ns: [1, 2, 1],
      o: [{ a: 1 }],
    });
  });
});
