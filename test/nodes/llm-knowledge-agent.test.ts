import { describe, expect, it } from "vitest";
import { NodeExecutionError, NotConfiguredError } from "../../src/ir/errors.js";
import type { KnowledgeService, ToolInvocation, ToolService } from "../../src/ir/services.js";
import { metadataMatches } from "../../src/nodes/knowledge-retrieval.js";
import { describe_, makeNode, rulesOf, run, ScriptedLlm } from "./llm-fakes.js";

// ---------------------------------------------------------------------------------------------
// knowledge-retrieval

function kr(config: Record<string, unknown> = {}) {
  return makeNode("kr", "knowledge-retrieval", {
    query_variable_selector: ["start", "sys.query"],
    dataset_ids: ["ds1", "ds2"],
    retrieval_mode: "multiple",
    multiple_retrieval_config: { top_k: 2, score_threshold: 0.3, reranking_enable: false },
    ...config,
  });
}

class FakeKb implements KnowledgeService {
  calls: Array<Parameters<KnowledgeService["retrieve"]>[0]> = [];
  async retrieve(req: Parameters<KnowledgeService["retrieve"]>[0]) {
    this.calls.push(req);
    return [
      {
        content: "low",
        title: "c",
        metadata: { dataset_id: "ds2", score: 0.4, doc_metadata: { lang: "de", year: 2020 } },
      },
      {
        content: "best",
        title: "a",
        metadata: { dataset_id: "ds1", score: 0.9, doc_metadata: { lang: "en", year: 2024 } },
      },
      {
        content: "mid",
        title: "b",
        metadata: { dataset_id: "ds1", score: 0.6, doc_metadata: { lang: "en", year: 2019 } },
      },
    ];
  }
}

describe("knowledge-retrieval", () => {
  it("reads the query selector (legacy start-node sys alias) and outputs array[object]", () => {
    const d = describe_(kr());
    expect(d.inputs).toEqual([
      { selector: ["start", "sys.query"], field: "query_variable_selector", expects: "string" },
    ]);
    expect(d.outputs).toEqual([{ name: "result", type: "array[object]" }]);
    expect(rulesOf(kr({ dataset_ids: [] })).map((x) => `${x.severity}:${x.code}`)).toEqual([
      "warning:knowledge.no_datasets",
    ]);
  });

  it("multiple mode: sends top_k and threshold, orders by score, stamps _source and position", async () => {
    const kb = new FakeKb();
    const res = await run(kr(), { start: { "sys.query": "what is new" } }, { knowledge: kb });
    expect(kb.calls[0]).toEqual({
      query: "what is new",
      datasetIds: ["ds1", "ds2"],
      topK: 2,
      scoreThreshold: 0.3,
      onNote: expect.any(Function),
    });
    expect(res.outputs.result).toEqual([
      {
        content: "best",
        title: "a",
        metadata: {
          _source: "knowledge",
          dataset_id: "ds1",
          score: 0.9,
          doc_metadata: { lang: "en", year: 2024 },
          position: 1,
        },
      },
      {
        content: "mid",
        title: "b",
        metadata: {
          _source: "knowledge",
          dataset_id: "ds1",
          score: 0.6,
          doc_metadata: { lang: "en", year: 2019 },
          position: 2,
        },
      },
    ]);
  });

  it("single mode keeps the best dataset's passages", async () => {
    const res = await run(
      kr({
        retrieval_mode: "single",
        single_retrieval_config: { model: { provider: "openai", name: "gpt-4o-mini", mode: "chat" } },
        multiple_retrieval_config: null,
      }),
      { start: { "sys.query": "q" } },
      { knowledge: new FakeKb() },
    );
    const result = res.outputs.result as Array<{ metadata: { dataset_id: string } }>;
    expect(result.map((r) => r.metadata.dataset_id)).toEqual(["ds1", "ds1"]);
  });

  it("manual metadata filtering applies the conditions, with templates in values", async () => {
    const res = await run(
      kr({
        multiple_retrieval_config: { top_k: 5 },
        metadata_filtering_mode: "manual",
        metadata_filtering_conditions: {
          logical_operator: "and",
          conditions: [
            { name: "lang", comparison_operator: "is", value: "{{#start.lang#}}" },
            { name: "year", comparison_operator: "≥", value: "2020" },
          ],
        },
      }),
      { start: { "sys.query": "q", lang: "en" } },
      { knowledge: new FakeKb() },
    );
    expect((res.outputs.result as Array<{ content: string }>).map((r) => r.content)).toEqual(["best"]);
    expect(metadataMatches("2024-05-01", "after", "2024-01-01")).toBe(true);
    expect(metadataMatches("a", "in", ["a", "b"])).toBe(true);
    expect(metadataMatches(undefined, "empty", null)).toBe(true);
  });

  it("errors: no knowledge service, empty query", async () => {
    const err = await run(kr(), { start: { "sys.query": "q" } }).catch((e) => e);
    expect(err).toBeInstanceOf(NotConfiguredError);
    expect(err.message).toMatch(/no knowledge bases are available here.*weft kb create NAME --id/);
    const empty = await run(kr(), { start: { "sys.query": "" } }, { knowledge: new FakeKb() }).catch((e) => e);
    expect(empty).toBeInstanceOf(NodeExecutionError);
    expect(empty.code).toBe("knowledge.query_missing");
  });
});

// ---------------------------------------------------------------------------------------------
// agent

const agentModel = {
  provider: "langgenius/openai/openai",
  model: "gpt-4o-mini",
  mode: "chat",
  completion_params: {},
  type: "model-selector",
};

function agent(params: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) {
  return makeNode("ag", "agent", {
    agent_strategy_provider_name: "langgenius/agent/agent",
    agent_strategy_name: "function_calling",
    agent_strategy_label: "FunctionCalling",
    plugin_unique_identifier: "langgenius/agent:0.0.37@abc",
    output_schema: {},
    agent_parameters: {
      model: { type: "constant", value: agentModel },
      instruction: { type: "constant", value: "You research. Context: {{#kr.result#}}" },
      query: { type: "constant", value: "{{#sys.query#}}" },
      tools: {
        type: "constant",
        value: [
          {
            enabled: true,
            provider_name: "webscraper",
            tool_name: "webscraper",
            type: "builtin",
            extra: { description: "Scrape a web page" },
            parameters: { url: { auto: 1, value: null } },
            settings: { user_agent: { value: { type: "mixed", value: "UA {{#start.ua#}}" } } },
            schemas: [
              { name: "url", type: "string", form: "llm", required: true, llm_description: "url to scrape" },
              { name: "user_agent", type: "string", form: "form", required: false },
            ],
          },
        ],
      },
      maximum_iterations: { type: "constant", value: 3 },
      ...params,
    },
    ...extra,
  });
}

class FakeTools implements ToolService {
  invocations: ToolInvocation[] = [];
  async invoke(inv: ToolInvocation) {
    this.invocations.push(inv);
    if (inv.toolName === "broken") throw new Error("tool exploded");
    return { text: `page text of ${String(inv.parameters.url)}`, files: [], json: [{ ok: true }] };
  }
  list() {
    return [
      {
        name: "calc",
        description: "Calculator",
        parameters: { type: "object", properties: { expr: { type: "string" } } },
      },
    ];
  }
}

describe("agent", () => {
  it("inputs come from agent_parameters (templates inside constants too), outputs text/files/json/usage", () => {
    const d = describe_(agent({ context: { type: "variable", value: ["kr", "result"] } }));
    expect(d.inputs.map((i) => `${i.field}=${i.selector.join(".")}`)).toEqual([
      "agent_parameters.instruction.value=kr.result",
      "agent_parameters.query.value=sys.query",
      "agent_parameters.tools.value=start.ua",
      "agent_parameters.context.value=kr.result",
    ]);
    expect(d.outputs.map((o) => `${o.name}:${o.type}`)).toEqual([
      "text:string",
      "files:array[file]",
      "json:array[object]",
      "usage:object",
    ]);
    const withSchema = describe_(
      agent({}, { output_schema: { type: "object", properties: { score: { type: "number" } } } }),
    );
    expect(withSchema.outputs.map((o) => o.name)).toContain("score");
    expect(rulesOf(agent())).toEqual([]);
    expect(rulesOf(agent({ model: { type: "constant", value: {} } })).map((x) => x.code)).toContain("agent.no_model");
  });

  it("function calling: calls the tool, feeds the result back, answers; usage summed", async () => {
    const fake = new ScriptedLlm([
      { toolCalls: [{ id: "t1", name: "webscraper", arguments: { url: "https://a.test" } }] },
      { text: "The page says hello." },
    ]);
    const tools = new FakeTools();
    const res = await run(
      agent(),
      { sys: { query: "what does a.test say?" }, kr: { result: "ctx" }, start: { ua: "x1" } },
      { llm: fake, tools },
    );
    expect(tools.invocations).toEqual([
      {
        providerId: "webscraper",
        providerType: "builtin",
        toolName: "webscraper",
        parameters: { url: "https://a.test" },
        configurations: { user_agent: "UA x1" },
        signal: expect.any(AbortSignal),
      },
    ]);
    const first = fake.requests[0]!;
    expect(first.model).toMatchObject({ provider: "langgenius/openai/openai", name: "gpt-4o-mini" });
    expect(first.messages[0]).toEqual({ role: "system", content: "You research. Context: ctx" });
    expect(first.messages[1]).toEqual({ role: "user", content: "what does a.test say?" });
    expect(first.tools?.[0]).toMatchObject({
      name: "webscraper",
      description: "Scrape a web page",
      parameters: {
        type: "object",
        properties: { url: { type: "string", description: "url to scrape" } },
        required: ["url"],
      },
    });
    const second = fake.requests[1]!;
    expect(second.messages.at(-2)).toMatchObject({ role: "assistant", toolCalls: [{ id: "t1", name: "webscraper" }] });
    expect(second.messages.at(-1)).toEqual({ role: "tool", toolCallId: "t1", content: "page text of https://a.test" });
    expect(res.outputs).toEqual({
      text: "The page says hello.",
      files: [],
      json: [{ ok: true }],
      usage: { prompt_tokens: 20, completion_tokens: 10, total_tokens: 30 },
    });
    expect(
      res.events
        .filter((e) => e.type === "chunk")
        .map((e) => e.text)
        .join(""),
    ).toBe("The page says hello.");
  });

  it("stops after maximum_iterations: the last round offers no tools", async () => {
    const call = { toolCalls: [{ id: "t", name: "webscraper", arguments: { url: "u" } }] };
    const fake = new ScriptedLlm([call, call, { text: "giving up" }]);
    const res = await run(agent(), { sys: { query: "loop" } }, { llm: fake, tools: new FakeTools() });
    expect(fake.requests).toHaveLength(3);
    expect(fake.requests[2]!.tools).toBeUndefined();
    expect(res.outputs.text).toBe("giving up");
  });

  it("without tools listed in the node it offers the service's tools; tool errors become observations", async () => {
    const fake = new ScriptedLlm([
      {
        toolCalls: [
          { id: "c", name: "calc", arguments: { expr: "1+1" } },
          { id: "d", name: "nope", arguments: {} },
        ],
      },
      { text: "2" },
    ]);
    const tools = new FakeTools();
    const res = await run(
      agent({ tools: { type: "constant", value: [] }, maximum_iterations: { type: "constant", value: "4" } }),
      { sys: { query: "1+1?" } },
      { llm: fake, tools },
    );
    expect(fake.requests[0]!.tools?.map((t) => t.name)).toEqual(["calc"]);
    expect(tools.invocations[0]).toMatchObject({ toolName: "calc", parameters: { expr: "1+1" } });
    expect(fake.requests[1]!.messages.at(-1)).toEqual({
      role: "tool",
      toolCallId: "d",
      content: 'error: there is no tool named "nope"',
    });
    expect(res.outputs.text).toBe("2");
  });

  it("ReAct: parses Action blocks, feeds Observations, returns the Final Answer", async () => {
    const fake = new ScriptedLlm([
      {
        text: 'Thought: look it up\nAction:\n```json\n{"action": "webscraper", "action_input": {"url": "https://b.test"}}\n```',
      },
      { text: "Thought: done\nFinal Answer: b.test is a test site." },
    ]);
    const tools = new FakeTools();
    const res = await run(
      agent({}, { agent_strategy_name: "ReAct" }),
      { sys: { query: "what is b.test?" } },
      { llm: fake, tools },
    );
    expect(fake.requests[0]!.tools).toBeUndefined();
    expect(fake.requests[0]!.messages[0]!.content).toContain("Final Answer:");
    expect(fake.requests[0]!.messages[0]!.content).toContain("webscraper: Scrape a web page");
    expect(tools.invocations[0]?.parameters).toEqual({ url: "https://b.test" });
    expect(fake.requests[1]!.messages.at(-1)).toEqual({
      role: "user",
      content: "Observation: page text of https://b.test",
    });
    expect(res.outputs.text).toBe("b.test is a test site.");
    expect(res.outputs.json).toEqual([{ ok: true }]);
  });

  it("json is [{data: []}] when no tool returned json; missing services are NotConfiguredError", async () => {
    const fake = new ScriptedLlm([{ text: "plain" }]);
    const res = await run(agent({ tools: { type: "constant", value: [] } }), { sys: { query: "hi" } }, { llm: fake });
    expect(res.outputs.json).toEqual([{ data: [] }]);
    await expect(run(agent(), { sys: { query: "hi" } })).rejects.toBeInstanceOf(NotConfiguredError);
    const noTools = await run(agent(), { sys: { query: "hi" } }, { llm: new ScriptedLlm([]) }).catch((e) => e);
    expect(noTools).toBeInstanceOf(NotConfiguredError);
    expect(noTools.code).toBe("tools.not_configured");
  });
});
