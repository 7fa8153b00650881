import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { NodeExecutionError, NotConfiguredError } from "../../src/ir/errors.js";
import { splitReasoning, ThinkFilter } from "../../src/nodes/llm.js";
import { describe_, makeNode, rulesOf, run, ScriptedLlm } from "./llm-fakes.js";

const model = { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: { temperature: 0.2 } };

function llm(config: Record<string, unknown>, id = "llm1") {
  return makeNode(id, "llm", {
    model,
    context: { enabled: false, variable_selector: [] },
    vision: { enabled: false },
    ...config,
  });
}

describe("llm node: static description", () => {
  it("reads template references, the context variable, jinja2 variables and vision files", () => {
    const node = llm({
      prompt_template: [
        { role: "system", text: "Use {{#context#}} and {{#1711.summary#}}" },
        { role: "user", edition_type: "jinja2", text: "", jinja2_text: "Hello {{ name }}" },
        { role: "user", text: "{{#sys.query#}}" },
      ],
      prompt_config: { jinja2_variables: [{ variable: "name", value_selector: ["start", "name"] }] },
      context: { enabled: true, variable_selector: ["kr", "result"] },
      vision: { enabled: true, configs: { detail: "high" } },
    });
    const d = describe_(node);
    expect(d.known).toBe(true);
    const sels = d.inputs.map((i) => i.selector.join("."));
    expect(sels).toEqual(["1711.summary", "sys.query", "kr.result", "start.name", "sys.files"]);
    expect(d.inputs[0]).toMatchObject({ field: "prompt_template[0].text", fromTemplate: true });
    expect(d.texts).toEqual([
      { field: "prompt_template[0].text", text: "Use {{#context#}} and {{#1711.summary#}}", kind: "dify" },
      { field: "prompt_template[1].jinja2_text", text: "Hello {{ name }}", kind: "jinja2" },
      { field: "prompt_template[2].text", text: "{{#sys.query#}}", kind: "dify" },
    ]);
    expect(d.outputs.map((o) => `${o.name}:${o.type}`)).toEqual([
      "text:string",
      "reasoning_content:string",
      "usage:object",
      "finish_reason:string",
      "files:array[file]",
    ]);
    expect(d.ports).toEqual(["source"]);
  });

  it("memory without a query template and completion #sys.query# read sys.query implicitly", () => {
    const mem = describe_(
      llm({ prompt_template: [{ role: "system", text: "hi" }], memory: { window: { enabled: false } } }),
    );
    expect(mem.inputs).toEqual([{ selector: ["sys", "query"], field: "memory", optional: true }]);
    const comp = describe_(
      llm({ model: { ...model, mode: "completion" }, prompt_template: { text: "Q: #sys.query#" } }),
    );
    expect(comp.inputs).toEqual([{ selector: ["sys", "query"], field: "prompt_template.text", optional: true }]);
    const tpl = describe_(
      llm({ prompt_template: [{ role: "system", text: "hi" }], memory: { query_prompt_template: "{{#sys.query#}}" } }),
    );
    expect(tpl.inputs.map((i) => i.field)).toEqual(["memory.query_prompt_template"]);
  });

  it("declares structured_output only when switched on (legacy switch name too)", () => {
    const schema = { type: "object", properties: { a: { type: "string" } } };
    const on = describe_(
      llm({
        prompt_template: [{ role: "user", text: "x" }],
        structured_output: { schema },
        structured_output_enabled: true,
      }),
    );
    expect(on.outputs.map((o) => o.name)).toContain("structured_output");
    const off = describe_(llm({ prompt_template: [{ role: "user", text: "x" }], structured_output: { schema } }));
    expect(off.outputs.map((o) => o.name)).not.toContain("structured_output");
  });

  it("keeps unknown fields and survives real corpus leftovers", () => {
    const node = llm({
      prompt_template: [{ id: "p1", role: "system", text: "hi" }],
      variables: [],
      selected: false,
      weird: 1,
    });
    const d = describe_(node);
    expect(d.config).toMatchObject({ variables: [], weird: 1 });
  });

  it("rules: empty prompt, non-object schema, context mismatches", () => {
    const codes = (n: ReturnType<typeof llm>) => rulesOf(n).map((d) => `${d.severity}:${d.code}`);
    expect(codes(llm({ prompt_template: [{ role: "system", text: "  " }] }))).toContain("error:llm.empty_prompt");
    expect(
      codes(
        llm({
          prompt_template: [{ role: "user", text: "x" }],
          structured_output: { schema: { type: "array" } },
          structured_output_switch_on: true,
        }),
      ),
    ).toContain("error:llm.structured_output_schema");
    expect(codes(llm({ prompt_template: [{ role: "user", text: "{{#context#}}" }] }))).toContain(
      "warning:llm.context_unset",
    );
    expect(
      codes(
        llm({
          prompt_template: [{ role: "user", text: "x" }],
          context: { enabled: true, variable_selector: ["a", "b"] },
        }),
      ),
    ).toContain("warning:llm.context_unused");
    expect(codes(llm({ prompt_template: [{ role: "user", text: "fine" }] }))).toEqual([]);
  });
});

describe("llm node: execution", () => {
  it("renders messages, fills {{#context#}} from retrieval results and streams the text", async () => {
    const fake = new ScriptedLlm([
      { text: "The answer is 42.", usage: { promptTokens: 7, completionTokens: 4, totalTokens: 11 } },
    ]);
    const node = llm({
      prompt_template: [
        { role: "system", text: "Context:\n{{#context#}}" },
        { role: "user", text: "Q: {{#start.q#}} / {{#missing.var#}}" },
      ],
      context: { enabled: true, variable_selector: ["kr", "result"] },
    });
    const res = await run(
      node,
      {
        start: { q: "what?" },
        kr: {
          result: [
            { content: "first passage", title: "a" },
            { content: "second", title: "b" },
          ],
        },
      },
      { llm: fake },
    );
    expect(fake.requests[0]?.messages).toEqual([
      { role: "system", content: "Context:\nfirst passage\nsecond" },
      { role: "user", content: "Q: what? / missing.var" },
    ]);
    expect(fake.requests[0]?.model).toMatchObject({
      provider: "openai",
      name: "gpt-4o-mini",
      completion_params: { temperature: 0.2 },
    });
    expect(res.outputs).toEqual({
      text: "The answer is 42.",
      reasoning_content: "",
      usage: { prompt_tokens: 7, completion_tokens: 4, total_tokens: 11 },
      finish_reason: "stop",
      files: [],
    });
    expect(res.usage).toEqual({ promptTokens: 7, completionTokens: 4, totalTokens: 11 });
    const chunks = res.events.filter((e) => e.type === "chunk");
    expect(chunks.map((c) => c.text).join("")).toBe("The answer is 42.");
    expect(chunks.every((c) => c.selector?.join(".") === "llm1.text")).toBe(true);
  });

  it("renders jinja2 messages with jinja2_variables", async () => {
    const fake = new ScriptedLlm([{ text: "ok" }]);
    const node = llm({
      prompt_template: [
        {
          role: "user",
          edition_type: "jinja2",
          text: "ignored",
          jinja2_text: "{% for x in items %}{{ loop.index }}:{{ x }} {% endfor %}for {{ who }}",
        },
      ],
      prompt_config: {
        jinja2_variables: [
          { variable: "items", value_selector: ["code", "list"] },
          { variable: "who", value_selector: ["start", "name"] },
        ],
      },
    });
    await run(node, { code: { list: ["a", "b"] }, start: { name: "Ann" } }, { llm: fake });
    expect(fake.requests[0]?.messages).toEqual([{ role: "user", content: "1:a 2:b for Ann" }]);
  });

  it("memory: history window then the query message from query_prompt_template", async () => {
    const fake = new ScriptedLlm([{ text: "ok" }]);
    const history = [
      { role: "user", content: "u1" },
      { role: "assistant", content: "a1" },
      { role: "user", content: "u2" },
      { role: "assistant", content: "a2" },
    ];
    const node = llm({
      prompt_template: [{ role: "system", text: "sys" }],
      memory: {
        window: { enabled: true, size: 1 },
        query_prompt_template: "Q={{#sys.query#}}",
        role_prefix: { user: "", assistant: "" },
      },
    });
    await run(node, { sys: { query: "now?", histories: history } }, { llm: fake });
    expect(fake.requests[0]?.messages).toEqual([
      { role: "system", content: "sys" },
      { role: "user", content: "u2" },
      { role: "assistant", content: "a2" },
      { role: "user", content: "Q=now?" },
    ]);
  });

  it("memory without a query template sends sys.query; no memory adds no query message", async () => {
    const fake = new ScriptedLlm([{ text: "ok" }, { text: "ok" }]);
    await run(
      llm({ prompt_template: [{ role: "system", text: "sys" }], memory: { window: { enabled: false } } }),
      { sys: { query: "hello" } },
      { llm: fake },
    );
    expect(fake.requests[0]?.messages.at(-1)).toEqual({ role: "user", content: "hello" });
    await run(llm({ prompt_template: [{ role: "system", text: "sys" }] }), { sys: { query: "hello" } }, { llm: fake });
    expect(fake.requests[1]?.messages).toEqual([{ role: "system", content: "sys" }]);
  });

  it("completion mode replaces #histories# and #sys.query# in the single prompt", async () => {
    const fake = new ScriptedLlm([{ text: "ok" }]);
    const node = llm({
      model: { ...model, mode: "completion" },
      prompt_template: { text: "History:\n#histories#\nNow: #sys.query# ({{#start.lang#}})" },
      memory: { window: { enabled: false }, role_prefix: { user: "Human", assistant: "AI" } },
    });
    await run(
      node,
      {
        start: { lang: "en" },
        sys: {
          query: "hi",
          histories: [
            { role: "user", content: "x" },
            { role: "assistant", content: "y" },
          ],
        },
      },
      { llm: fake },
    );
    expect(fake.requests[0]?.messages).toEqual([{ role: "user", content: "History:\nHuman: x\nAI: y\nNow: hi (en)" }]);
  });

  it("vision appends files to the last user message; file references in text become parts", async () => {
    const fake = new ScriptedLlm([{ text: "a cat" }]);
    const img = {
      type: "image",
      transfer_method: "remote_url",
      remote_url: "https://x.test/cat.png",
      filename: "cat.png",
      extension: ".png",
      mime_type: "image/png",
      size: 10,
    };
    const doc = {
      ...img,
      type: "document",
      remote_url: "https://x.test/a.pdf",
      filename: "a.pdf",
      extension: ".pdf",
      mime_type: "application/pdf",
    };
    const node = llm({
      prompt_template: [{ role: "user", text: "Describe {{#start.doc#}}" }],
      vision: { enabled: true, configs: { variable_selector: ["start", "pics"], detail: "high" } },
    });
    await run(node, { start: { pics: [img], doc } }, { llm: fake });
    expect(fake.requests[0]?.messages).toEqual([
      {
        role: "user",
        content: [
          { type: "text", text: "Describe " },
          { type: "file", data: "https://x.test/a.pdf", mediaType: "application/pdf", filename: "a.pdf" },
          { type: "file", data: "https://x.test/cat.png", mediaType: "image/png", filename: "cat.png" },
        ],
      },
    ]);
  });

  it("a prompt that renders empty fails the node", async () => {
    const fake = new ScriptedLlm([{ text: "never" }]);
    const node = llm({
      prompt_template: [{ role: "user", text: "{{#context#}}" }],
      context: { enabled: true, variable_selector: ["a", "b"] },
    });
    const err = await run(node, { a: { b: "" } }, { llm: fake }).catch((e) => e);
    expect(err).toBeInstanceOf(NodeExecutionError);
    expect(err.code).toBe("llm.empty_prompt");
    expect(fake.requests).toHaveLength(0);
  });

  it("structured output asks for JSON with the schema and parses (and repairs) the answer", async () => {
    const schema = { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
    const fake = new ScriptedLlm([{ text: '```json\n{"city": "Paris",}\n```' }]);
    const node = llm({
      prompt_template: [{ role: "user", text: "where?" }],
      structured_output: { schema },
      structured_output_switch_on: true,
    });
    const res = await run(node, {}, { llm: fake });
    expect(fake.requests[0]?.json).toEqual({ schema, name: "structured_output" });
    expect(res.outputs.structured_output).toEqual({ city: "Paris" });

    const bad = new ScriptedLlm([{ text: "no json here" }]);
    const err = await run(node, {}, { llm: bad }).catch((e) => e);
    expect(err.code).toBe("llm.structured_output_invalid");
  });

  it("reasoning: tagged keeps <think>, separated splits it out of text and the stream", async () => {
    const raw = "<think>step 1\nstep 2</think>\n\nFinal answer.";
    const tagged = await run(
      llm({ prompt_template: [{ role: "user", text: "q" }] }),
      {},
      { llm: new ScriptedLlm([{ text: raw }]) },
    );
    expect(tagged.outputs.text).toBe(raw);
    expect(tagged.outputs.reasoning_content).toBe("");

    const sep = await run(
      llm({ prompt_template: [{ role: "user", text: "q" }], reasoning_format: "separated" }),
      {},
      { llm: new ScriptedLlm([{ text: raw }]) },
    );
    expect(sep.outputs.text).toBe("Final answer.");
    expect(sep.outputs.reasoning_content).toBe("step 1\nstep 2");
    expect(
      sep.events
        .filter((e) => e.type === "chunk")
        .map((e) => e.text)
        .join(""),
    ).toBe("Final answer.");

    // A provider that reports reasoning apart from the text.
    const apart = await run(
      llm({ prompt_template: [{ role: "user", text: "q" }] }),
      {},
      { llm: new ScriptedLlm([{ text: "A.", reasoning: "because" }]) },
    );
    expect(apart.outputs.text).toBe("<think>\nbecause\n</think>\n\nA.");
  });

  it("no LLM service is a NotConfiguredError; provider failures name the node", async () => {
    const node = llm({ prompt_template: [{ role: "user", text: "q" }] });
    const err = await run(node, {}).catch((e) => e);
    expect(err).toBeInstanceOf(NotConfiguredError);
    expect(err.code).toBe("llm.not_configured");
    const failing = { chat: async () => Promise.reject(new Error("boom")) };
    const err2 = await run(node, {}, { llm: failing }).catch((e) => e);
    expect(err2).toBeInstanceOf(NodeExecutionError);
    expect(err2.code).toBe("llm.invoke_failed");
    expect(err2.message).toContain('"llm1"');
    expect(err2.message).toContain("boom");
  });
});

describe("think-tag stream filter", () => {
  it("removes think blocks however the text is chunked", () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 30 }).filter((s) => !s.includes("<") && !s.includes(">")),
        fc.string({ maxLength: 30 }).filter((s) => !s.includes("<") && !s.includes(">")),
        fc.array(fc.integer({ min: 1, max: 7 }), { minLength: 1, maxLength: 40 }),
        (thought, answer, cuts) => {
          const full = `<think>${thought}</think>${answer}`;
          const f = new ThinkFilter();
          let out = "";
          let i = 0;
          let k = 0;
          while (i < full.length) {
            const n = cuts[k++ % cuts.length] as number;
            out += f.feed(full.slice(i, i + n));
            i += n;
          }
          out += f.flush();
          expect(out).toBe(answer.replace(/^\s+/, ""));
        },
      ),
    );
  });

  it("splitReasoning handles an unclosed trailing block", () => {
    expect(splitReasoning("Answer <think>half")).toEqual({ text: "Answer", reasoning: "half" });
  });
});
