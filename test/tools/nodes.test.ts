import { describe, expect, it } from "vitest";
import { NodeExecutionError, NotConfiguredError } from "../../src/ir/errors.js";
import type { FileValue, ToolInvocation, ToolResult, ToolService } from "../../src/ir/services.js";
import { type DocumentExtractorConfig, documentExtractorNode } from "../../src/nodes/document-extractor.js";
import { type ToolConfig, toolNode } from "../../src/nodes/tool.js";
import { LocalToolService } from "../../src/tools/builtin/index.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { MemoryFileService } from "../../src/tools/files.js";
import { fakeCtx } from "./fake-ctx.js";
import { makeDocx, makePdf } from "./samples.js";

const parseTool = (data: Record<string, unknown>) => toolNode.configSchema.parse(data) as ToolConfig;
const node = (id: string, type: string, title = "") => ({ id, type, title });

/** Records invocations and answers with a fixed result. */
function recorder(result: Partial<ToolResult> = {}): ToolService & { calls: ToolInvocation[] } {
  const calls: ToolInvocation[] = [];
  return {
    calls,
    async invoke(inv) {
      calls.push(inv);
      return { text: "", files: [], json: [], ...result };
    },
  };
}

describe("tool node: config and static view", () => {
  const data = {
    provider_id: "bowenliang123/md_exporter/md_exporter",
    provider_name: "bowenliang123/md_exporter/md_exporter",
    provider_type: "builtin",
    tool_name: "md_to_pdf",
    tool_label: "Markdown转PDF文件",
    tool_configurations: {},
    tool_parameters: {
      md_text: { type: "mixed", value: "{{#1748531231325.markdown_text#}}" },
      output_filename: { type: "mixed", value: "练习{{#1748525958382.text#}}" },
      src: { type: "variable", value: ["1747105418724", "file"] },
    },
    paramSchemas: [
      { name: "md_text", required: true, form: "llm" },
      { name: "src", required: false, form: "llm" },
    ],
    is_team_authorization: true,
  };

  it("keeps unknown fields and derives inputs from variable params and template refs", () => {
    const c = parseTool(data);
    expect((c as Record<string, unknown>).is_team_authorization).toBe(true);
    expect(toolNode.inputs(c, { ...node("t", "tool"), config: data })).toEqual([
      { selector: ["1748531231325", "markdown_text"], field: "tool_parameters.md_text.value", fromTemplate: true },
      { selector: ["1748525958382", "text"], field: "tool_parameters.output_filename.value", fromTemplate: true },
      { selector: ["1747105418724", "file"], field: "tool_parameters.src.value", optional: true },
    ]);
    expect(toolNode.outputs(c, { ...node("t", "tool"), config: data })).toEqual([
      { name: "text", type: "string" },
      { name: "files", type: "array[file]" },
      { name: "json", type: "array[object]" },
    ]);
    expect(toolNode.texts?.(c, { ...node("t", "tool"), config: data }).map((t) => t.field)).toEqual([
      "tool_parameters.md_text.value",
      "tool_parameters.output_filename.value",
    ]);
  });

  it("accepts legacy scalar configurations and v2 {type, value} ones, with refs in the latter", () => {
    const legacy = parseTool({
      provider_id: "time",
      tool_name: "current_time",
      tool_configurations: { format: "%Y", timezone: "Asia/Shanghai" },
      tool_parameters: {},
    });
    expect(legacy.provider_type).toBe("builtin");
    expect(toolNode.inputs(legacy, { ...node("t", "tool"), config: {} })).toEqual([]);
    const v2 = parseTool({
      provider_id: "tavily",
      tool_name: "tavily_search",
      tool_node_version: "2",
      tool_configurations: {
        max_results: { type: "constant", value: 5 },
        topic: { type: "mixed", value: "{{#start.topic#}}" },
      },
      tool_parameters: { query: { type: "mixed", value: "{{#sys.query#}}" } },
    });
    expect(toolNode.inputs(v2, { ...node("t", "tool"), config: {} }).map((r) => r.selector)).toEqual([
      ["sys", "query"],
      ["start", "topic"],
    ]);
  });

  it("rejects malformed parameters with field paths", () => {
    const bad = toolNode.configSchema.safeParse({
      provider_id: "x",
      tool_name: "y",
      tool_parameters: {
        a: { type: "variable", value: "not-a-selector" },
        b: { type: "mixed", value: 3 },
        c: { type: "magic", value: 1 },
      },
    });
    expect(bad.success).toBe(false);
    const paths = bad.error?.issues.map((i) => i.path.join(".")) ?? [];
    expect(paths).toEqual(expect.arrayContaining(["tool_parameters.a", "tool_parameters.b", "tool_parameters.c.type"]));
    expect(toolNode.configSchema.safeParse({ provider_id: "", tool_name: "y" }).success).toBe(false);
  });

  it("declares extra outputs from output_schema", () => {
    const c = parseTool({
      provider_id: "p/q/r",
      tool_name: "t",
      output_schema: {
        type: "object",
        properties: { count: { type: "number" }, items: { type: "array", items: { type: "string" } } },
      },
    });
    expect(toolNode.outputs(c, { ...node("t", "tool"), config: {} }).slice(3)).toEqual([
      { name: "count", type: "number" },
      { name: "items", type: "array[string]" },
    ]);
  });
});

describe("tool node: executor", () => {
  const cfg = parseTool({
    provider_id: "langgenius/echarts/echarts",
    tool_name: "bar_chart",
    tool_configurations: { legacy: "x", wrapped: { type: "mixed", value: "n={{#llm.n#}}" } },
    tool_parameters: {
      title: { type: "mixed", value: "Sales of {{#start.region#}} in {{#missing.var#}}" },
      data: { type: "variable", value: ["llm", "numbers"] },
      x_axis: { type: "constant", value: "a;b" },
      obj: { type: "mixed", value: "{{#llm.obj#}}" },
    },
  });
  const pool = { start: { region: "North" }, llm: { numbers: "1;2", obj: { k: [1] }, n: 7 } };

  it("renders mixed, reads variable, passes constant; configurations unwrapped; json defaults to [{data: []}]", async () => {
    const tools = recorder({ text: "ok" });
    const ctx = fakeCtx({ node: node("tool1", "tool", "Chart"), config: cfg, pool, services: { tools } });
    const r = await toolNode.execute!(ctx);
    expect(tools.calls).toHaveLength(1);
    expect(tools.calls[0]).toMatchObject({
      providerId: "langgenius/echarts/echarts",
      providerType: "builtin",
      toolName: "bar_chart",
      parameters: { title: "Sales of North in missing.var", data: "1;2", x_axis: "a;b", obj: '{"k":[1]}' },
      configurations: { legacy: "x", wrapped: "n=7" },
    });
    expect(r.outputs).toEqual({ text: "ok", files: [], json: [{ data: [] }] });
  });

  it("constants reach the tool as Dify's rendered text; null settings are left out", async () => {
    const tools = recorder();
    const c = parseTool({
      provider_id: "p",
      tool_name: "t",
      tool_parameters: {
        n: { type: "constant", value: 5 },
        flag: { type: "constant", value: true },
        nothing: { type: "constant", value: null },
        tpl: { type: "constant", value: "{{#start.region#}}!" },
      },
      tool_configurations: { width: { type: "constant", value: null }, depth: { type: "constant", value: 3 } },
    });
    await toolNode.execute!(fakeCtx({ node: node("t", "tool"), config: c, pool, services: { tools } }));
    expect(tools.calls[0]?.parameters).toEqual({ n: "5", flag: "True", nothing: "None", tpl: "North!" });
    expect(tools.calls[0]?.configurations).toEqual({ depth: 3 });
  });

  it("a missing required variable fails the node; a missing optional one is omitted", async () => {
    const tools = recorder();
    const ctx = fakeCtx({
      node: node("tool1", "tool", "Chart"),
      config: cfg,
      pool: { start: { region: "N" }, llm: {} },
      services: { tools },
    });
    const err = await toolNode.execute!(ctx).catch((e) => e);
    expect(err).toBeInstanceOf(NodeExecutionError);
    expect(err.code).toBe("tool.missing_variable");
    expect(err.nodeId).toBe("tool1");
    expect(err.message).toContain('parameter "data"');
    expect(tools.calls).toHaveLength(0);

    const optional = parseTool({ ...cfg, paramSchemas: [{ name: "data", required: false }] });
    const ctx2 = fakeCtx({ node: node("tool1", "tool"), config: optional, pool: { llm: {} }, services: { tools } });
    await toolNode.execute!(ctx2);
    expect(tools.calls[0]?.parameters).not.toHaveProperty("data");
  });

  it("learns required-ness from the tool service's specs when the node carries none", async () => {
    const tools = new LocalToolService({ files: new MemoryFileService(), now: () => new Date("2026-03-15T04:05:06Z") });
    const c = parseTool({
      provider_id: "time",
      tool_name: "timestamp_to_localtime",
      tool_parameters: {
        timestamp: { type: "constant", value: 0 },
        timezone: { type: "variable", value: ["start", "tz"] },
      },
    });
    const r = await toolNode.execute!(fakeCtx({ node: node("t", "tool"), config: c, pool: {}, services: { tools } }));
    expect(r.outputs.text).toBe("1970-01-01 00:00:00 UTC");
  });

  it("passes the tool's variables through as outputs and keeps its json", async () => {
    const tools = recorder({ text: "t", json: [{ a: 1 }], variables: { score: 3 } });
    const r = await toolNode.execute!(fakeCtx({ node: node("t", "tool"), config: cfg, pool, services: { tools } }));
    expect(r.outputs).toEqual({ score: 3, text: "t", files: [], json: [{ a: 1 }] });
  });

  it("runs the real built-in md_to_docx end to end and outputs a stored file", async () => {
    const files = new MemoryFileService();
    const tools = new LocalToolService({ files });
    const c = parseTool({
      provider_id: "bowenliang123/md_exporter/md_exporter",
      tool_name: "md_to_docx",
      tool_parameters: { md_text: { type: "mixed", value: "# {{#llm.title#}}\n\nBody." } },
    });
    const r = await toolNode.execute!(
      fakeCtx({ node: node("t", "tool"), config: c, pool: { llm: { title: "Plan" } }, services: { tools, files } }),
    );
    const out = r.outputs.files as FileValue[];
    expect(out).toHaveLength(1);
    const text = await new TextDocumentService().extract(out[0] as FileValue, await files.get(out[0] as FileValue));
    expect(text).toBe("Plan\nBody.");
    expect(r.outputs.json).toEqual([{ data: [] }]);
  });

  it("not-configured tools keep their error class and gain the node id; other errors name the node", async () => {
    const tools = new LocalToolService();
    const c = parseTool({
      provider_id: "tavily",
      tool_name: "tavily_search",
      tool_parameters: { query: { type: "constant", value: "q" } },
    });
    const err = await toolNode.execute!(fakeCtx({ node: node("s1", "tool"), config: c, services: { tools } })).catch(
      (e) => e,
    );
    expect(err).toBeInstanceOf(NotConfiguredError);
    expect(err.code).toBe("tool.not_configured");
    expect(err.details.nodeId).toBe("s1");

    const bad = parseTool({
      provider_id: "langgenius/echarts/echarts",
      tool_name: "bar_chart",
      tool_parameters: {
        title: { type: "constant", value: "t" },
        data: { type: "constant", value: "x;y" },
        x_axis: { type: "constant", value: "a;b" },
      },
    });
    const e2 = await toolNode.execute!(
      fakeCtx({ node: node("c1", "tool", "Chart"), config: bad, services: { tools } }),
    ).catch((e) => e);
    expect(e2).toBeInstanceOf(NodeExecutionError);
    expect(e2.code).toBe("tool.invalid_parameter");
    expect(e2.message).toContain('tool node "Chart"');

    const none = await toolNode.execute!(fakeCtx({ node: node("n", "tool"), config: c })).catch((e) => e);
    expect(none).toBeInstanceOf(NotConfiguredError);

    const throwing: ToolService = {
      invoke: async () => {
        throw new TypeError("boom");
      },
    };
    const e3 = await toolNode.execute!(
      fakeCtx({ node: node("n", "tool"), config: c, services: { tools: throwing } }),
    ).catch((e) => e);
    expect(e3).toMatchObject({ code: "tool.invoke_failed", nodeId: "n" });
  });
});

describe("document-extractor node", () => {
  const cfg = (data: Record<string, unknown>) =>
    documentExtractorNode.configSchema.parse(data) as DocumentExtractorConfig;
  const services = () => ({ files: new MemoryFileService(), documents: new TextDocumentService() });

  it("declares string or array[string] by is_array_file and reads its selector", () => {
    const one = cfg({ variable_selector: ["start", "file"] });
    expect(documentExtractorNode.outputs(one, { ...node("d", "document-extractor"), config: {} })).toEqual([
      { name: "text", type: "string" },
    ]);
    expect(documentExtractorNode.inputs(one, { ...node("d", "document-extractor"), config: {} })).toEqual([
      { selector: ["start", "file"], field: "variable_selector", expects: "file" },
    ]);
    const many = cfg({ variable_selector: ["sys", "files"], is_array_file: true });
    expect(documentExtractorNode.outputs(many, { ...node("d", "document-extractor"), config: {} })).toEqual([
      { name: "text", type: "array[string]" },
    ]);
    expect(documentExtractorNode.configSchema.safeParse({ variable_selector: [] }).success).toBe(false);
  });

  it("flags non-file inputs and an is_array_file that disagrees with the input type", () => {
    const c = cfg({ variable_selector: ["start", "q"] });
    const sctx = (t: string) =>
      ({ node: node("d", "document-extractor"), typeOf: () => t }) as unknown as Parameters<
        NonNullable<typeof documentExtractorNode.rules>
      >[1];
    expect(documentExtractorNode.rules?.(c, sctx("string")).map((d) => d.code)).toEqual([
      "document_extractor.not_file",
    ]);
    expect(documentExtractorNode.rules?.(c, sctx("array[file]")).map((d) => d.code)).toEqual([
      "document_extractor.array_mismatch",
    ]);
    expect(documentExtractorNode.rules?.(c, sctx("file"))).toEqual([]);
  });

  it("extracts one file to a string (a real PDF)", async () => {
    const s = services();
    const f = await s.files.put(await makePdf(["Invoice 42", "Total: 99 EUR"]), {
      filename: "inv.pdf",
      mimeType: "application/pdf",
      transferMethod: "local_file",
    });
    const ctx = fakeCtx({
      node: node("d", "document-extractor"),
      config: cfg({ variable_selector: ["start", "file"] }),
      pool: { start: { file: f } },
      services: s,
    });
    const r = await documentExtractorNode.execute!(ctx);
    expect(r.outputs.text).toContain("Invoice 42");
    expect(r.outputs.text).toContain("Total: 99 EUR");
  });

  it("extracts a list of files to array[string], in order; an empty list gives []", async () => {
    const s = services();
    const a = await s.files.put(new TextEncoder().encode("alpha"), { filename: "a.txt", mimeType: "text/plain" });
    const b = await s.files.put(await makeDocx(), { filename: "b.docx", mimeType: "" });
    const ctx = fakeCtx({
      node: node("d", "document-extractor"),
      config: cfg({ variable_selector: ["sys", "files"], is_array_file: true }),
      pool: { sys: { files: [a, b] } },
      services: s,
    });
    const r = await documentExtractorNode.execute!(ctx);
    expect((r.outputs.text as string[])[0]).toBe("alpha");
    expect((r.outputs.text as string[])[1]).toContain("Quarterly Report");
    const empty = fakeCtx({
      node: node("d", "document-extractor"),
      config: cfg({ variable_selector: ["sys", "files"], is_array_file: true }),
      pool: { sys: { files: [] } },
      services: s,
    });
    expect((await documentExtractorNode.execute!(empty)).outputs).toEqual({ text: [] });
  });

  it("fails with typed node errors: missing variable, not a file, unsupported type, no services", async () => {
    const s = services();
    const c = cfg({ variable_selector: ["start", "file"] });
    const run = (pool: Record<string, Record<string, unknown>>, svc: Record<string, unknown> = s) =>
      documentExtractorNode.execute!(
        fakeCtx({ node: node("d", "document-extractor", "Extract"), config: c, pool, services: svc }),
      ).catch((e) => e);

    expect(await run({})).toMatchObject({ code: "document.missing_variable", nodeId: "d" });
    expect(await run({ start: { file: "just text" } })).toMatchObject({ code: "document.not_a_file" });
    expect(await run({ start: { file: null } })).toMatchObject({ code: "document.no_file" });
    const png = await s.files.put(new Uint8Array([137, 80, 78, 71]), { filename: "x.png", mimeType: "image/png" });
    const unsupported = await run({ start: { file: png } });
    expect(unsupported).toBeInstanceOf(NodeExecutionError);
    expect(unsupported.code).toBe("document.unsupported_type");
    expect(unsupported.message).toContain('document-extractor node "Extract"');
    expect(unsupported.message).toContain(".png");
    expect(await run({ start: { file: png } }, {})).toBeInstanceOf(NotConfiguredError);
  });
});
