import JSZip from "jszip";
import { describe, expect, it } from "vitest";
import { NotConfiguredError } from "../../src/ir/errors.js";
import type { FileValue } from "../../src/ir/services.js";
import { LocalToolService, providerKey } from "../../src/tools/builtin/index.js";
import { TextDocumentService } from "../../src/tools/documents.js";
import { ToolError } from "../../src/tools/errors.js";
import { MemoryFileService } from "../../src/tools/files.js";
import { pdfFonts } from "../../src/tools/render/fonts.js";

const PINNED = new Date("2026-03-15T04:05:06.789Z");

function setup() {
  const files = new MemoryFileService();
  const tools = new LocalToolService({ files, now: () => PINNED });
  return { files, tools };
}

const text = async (files: MemoryFileService, f: FileValue | undefined) =>
  new TextDecoder().decode(await files.get(f as FileValue));

function pngSize(bytes: Uint8Array): { width: number; height: number } {
  expect([...bytes.slice(0, 8)]).toEqual([137, 80, 78, 71, 13, 10, 26, 10]);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return { width: v.getUint32(16), height: v.getUint32(20) };
}

describe("time tools", () => {
  it("current_time uses the pinned clock, the time zone and strftime format from configurations", async () => {
    const { tools } = setup();
    const r = await tools.invoke({
      providerId: "time",
      toolName: "current_time",
      parameters: {},
      configurations: { format: "%Y-%m-%d %H:%M:%S", timezone: "Asia/Shanghai" },
    });
    expect(r).toEqual({ text: "2026-03-15 12:05:06", files: [], json: [] });
  });

  it("defaults to UTC and Dify's default format, and accepts the plugin id spelling", async () => {
    const { tools } = setup();
    const r = await tools.invoke({ providerId: "langgenius/time/time", toolName: "current_time", parameters: {} });
    expect(r.text).toBe("2026-03-15 04:05:06 UTC");
    const ny = await tools.invoke({
      providerId: "time",
      toolName: "current_time",
      parameters: {},
      configurations: { timezone: "America/New_York", format: "%A %d %B %Y %I:%M %p %Z %z" },
    });
    expect(ny.text).toBe("Sunday 15 March 2026 12:05 AM EDT -0400");
  });

  it("rejects unknown time zones with a typed error naming the parameter", async () => {
    const { tools } = setup();
    const err = await tools
      .invoke({
        providerId: "time",
        toolName: "current_time",
        parameters: {},
        configurations: { timezone: "Mars/Olympus" },
      })
      .catch((e) => e);
    expect(err).toBeInstanceOf(ToolError);
    expect(err.code).toBe("tool.invalid_parameter");
    expect(err.details.parameter).toBe("timezone");
  });

  it("weekday, timestamp and time-zone conversions", async () => {
    const { tools } = setup();
    const wd = await tools.invoke({
      providerId: "time",
      toolName: "weekday",
      parameters: { year: "2024", month: "2", day: "29" },
    });
    expect(wd.text).toBe("February 29, 2024 is Thursday.");
    await expect(
      tools.invoke({ providerId: "time", toolName: "weekday", parameters: { year: 2023, month: 2, day: 29 } }),
    ).rejects.toMatchObject({ code: "tool.invalid_parameter" });
    const ts = await tools.invoke({
      providerId: "time",
      toolName: "localtime_to_timestamp",
      parameters: { localtime: "2026-03-15 12:05:06", timezone: "Asia/Shanghai" },
    });
    expect(ts.text).toBe(String(Math.floor(PINNED.getTime() / 1000)));
    const back = await tools.invoke({
      providerId: "time",
      toolName: "timestamp_to_localtime",
      parameters: { timestamp: ts.text, timezone: "Asia/Tokyo" },
    });
    expect(back.text).toBe("2026-03-15 13:05:06 JST");
    const conv = await tools.invoke({
      providerId: "time",
      toolName: "timezone_conversion",
      parameters: { current_time: "2026-07-01 09:00:00", current_timezone: "Europe/Berlin", target_timezone: "UTC" },
    });
    expect(conv.text).toBe("2026-07-01 07:00:00");
  });
});

describe("mermaid_converter", () => {
  const code = "```mermaid\ngraph TD\n  A[Start] --> B{Check}\n  B -->|yes| C[Done]\n```";

  it("renders fenced Mermaid code to a PNG file in the file store", async () => {
    const { files, tools } = setup();
    const r = await tools.invoke({
      providerId: "hjlarry/mermaid_converter/mermaid_converter",
      toolName: "mermaid_converter",
      parameters: { mermaid_code: code },
      configurations: { output_format: "png", theme: "default", background_color: "", width: 600, height: null },
    });
    expect(r.text).toBe("");
    expect(r.files).toHaveLength(1);
    const f = r.files[0] as FileValue;
    expect(f).toMatchObject({
      filename: "mermaid_diagram.png",
      extension: ".png",
      mime_type: "image/png",
      type: "image",
    });
    const size = pngSize(await files.get(f));
    expect(size.width).toBe(600);
    expect(size.height).toBeGreaterThan(100);
  });

  it("renders SVG with the diagram's labels and no unresolved colours needed", async () => {
    const { files, tools } = setup();
    const r = await tools.invoke({
      providerId: "hjlarry/mermaid_converter/mermaid_converter",
      toolName: "mermaid_converter",
      parameters: { mermaid_code: code, output_filename: "arch" },
      configurations: { output_format: "svg", theme: "dark" },
    });
    const svg = await text(files, r.files[0]);
    expect(r.files[0]?.filename).toBe("arch.svg");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg).toContain(">Start<");
    expect(svg).toContain(">Check<");
  });

  it("wraps the PNG in a PDF page for output_format pdf", async () => {
    const { files, tools } = setup();
    const r = await tools.invoke({
      providerId: "mermaid_converter",
      toolName: "mermaid_converter",
      parameters: { mermaid_code: code },
      configurations: { output_format: "pdf" },
    });
    const bytes = await files.get(r.files[0] as FileValue);
    expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe("%PDF-");
    expect(r.files[0]?.mime_type).toBe("application/pdf");
  });

  it("reports bad diagrams and unsupported formats as typed errors", async () => {
    const { tools } = setup();
    await expect(
      tools.invoke({
        providerId: "mermaid_converter",
        toolName: "mermaid_converter",
        parameters: { mermaid_code: "not a diagram ((" },
      }),
    ).rejects.toMatchObject({ code: "tool.invalid_parameter", details: { parameter: "mermaid_code" } });
    await expect(
      tools.invoke({
        providerId: "mermaid_converter",
        toolName: "mermaid_converter",
        parameters: { mermaid_code: code },
        configurations: { output_format: "jpg" },
      }),
    ).rejects.toMatchObject({ code: "tool.unsupported_option" });
    await expect(
      tools.invoke({ providerId: "mermaid_converter", toolName: "mermaid_converter", parameters: {} }),
    ).rejects.toMatchObject({ code: "tool.missing_parameter", details: { parameter: "mermaid_code" } });
    await expect(
      tools.invoke({
        providerId: "mermaid_converter",
        toolName: "mermaid_converter",
        parameters: { mermaid_code: "  " },
      }),
    ).rejects.toMatchObject({ code: "tool.invalid_parameter" });
  });
});

describe("md_exporter", () => {
  const md =
    '# Contract Review\n\nThe **risk** is low.\n\n- clause 1\n- clause 2\n\n| Item | Risk |\n|---|---|\n| Payment | low |\n| Term, renewal | "high" |\n';
  const docs = new TextDocumentService();
  const id = "bowenliang123/md_exporter/md_exporter";

  it("md_to_docx writes a DOCX whose text reads back", async () => {
    const { files, tools } = setup();
    const r = await tools.invoke({ providerId: id, toolName: "md_to_docx", parameters: { md_text: md } });
    const f = r.files[0] as FileValue;
    expect(f).toMatchObject({ filename: "output.docx", extension: ".docx", type: "document" });
    const back = await docs.extract(f, await files.get(f));
    expect(back).toContain("Contract Review");
    expect(back).toContain("The risk is low.");
    expect(back).toContain("| Payment | low |");
  });

  it("md_to_docx keeps numbered and nested lists", async () => {
    const { files, tools } = setup();
    const r = await tools.invoke({
      providerId: id,
      toolName: "md_to_docx",
      parameters: { md_text: "1. first\n2. second\n   - inner\n\nafter" },
    });
    const f = r.files[0] as FileValue;
    const back = await docs.extract(f, await files.get(f));
    expect(back).toMatch(/1\. first\n2\. second/);
    expect(back).toContain("inner");
    expect(back.trim().endsWith("after")).toBe(true);
  });

  it("md_to_pdf writes a PDF whose text reads back, named by output_filename", async () => {
    const { files, tools } = setup();
    const r = await tools.invoke({
      providerId: id,
      toolName: "md_to_pdf",
      parameters: { md_text: `\`\`\`markdown\n${md}\`\`\``, output_filename: "review/final" },
    });
    const f = r.files[0] as FileValue;
    expect(f.filename).toBe("review_final.pdf");
    const back = await docs.extract(f, await files.get(f));
    expect(back).toContain("Contract Review");
    expect(back).toContain("clause 2");
    expect(back).not.toContain("```");
  });

  it("md_to_pdf refuses CJK text when no CJK font exists, instead of writing blank boxes", async () => {
    const { files, tools } = setup();
    const prev = process.env.WEFT_CJK_FONT;
    const cjk = { providerId: id, toolName: "md_to_pdf", parameters: { md_text: "# 合同审查\n\n风险低" } };
    try {
      process.env.WEFT_CJK_FONT = "none";
      await expect(tools.invoke(cjk)).rejects.toMatchObject({ code: "tool.font_missing" });
      // With a CJK face on the machine (Debian fonts-wqy-zenhei / fonts-noto-cjk) the text survives.
      delete process.env.WEFT_CJK_FONT;
      if (pdfFonts().cjk) {
        const r = await tools.invoke(cjk);
        const f = r.files[0] as FileValue;
        expect(await docs.extract(f, await files.get(f))).toContain("合同审查");
      }
    } finally {
      if (prev === undefined) delete process.env.WEFT_CJK_FONT;
      else process.env.WEFT_CJK_FONT = prev;
    }
  });

  it("md_to_html, md_to_html_text and md_to_md", async () => {
    const { files, tools } = setup();
    const html = await tools.invoke({ providerId: id, toolName: "md_to_html", parameters: { md_text: md } });
    const page = await text(files, html.files[0]);
    expect(page).toContain("<title>Contract Review</title>");
    expect(page).toContain("<strong>risk</strong>");
    expect(page).toContain("<table>");
    const asText = await tools.invoke({ providerId: id, toolName: "md_to_html_text", parameters: { md_text: md } });
    expect(asText.files).toEqual([]);
    expect(asText.text).toContain("<h1>Contract Review</h1>");
    const mdFile = await tools.invoke({ providerId: id, toolName: "md_to_md", parameters: { md_text: md } });
    expect(await text(files, mdFile.files[0])).toBe(md);
    expect(mdFile.files[0]?.mime_type).toBe("text/markdown");
  });

  it("md_to_csv and md_to_json export tables", async () => {
    const { files, tools } = setup();
    const csv = await tools.invoke({ providerId: id, toolName: "md_to_csv", parameters: { md_text: md } });
    expect(await text(files, csv.files[0])).toBe('Item,Risk\r\nPayment,low\r\n"Term, renewal","""high"""\r\n');
    const json = await tools.invoke({ providerId: id, toolName: "md_to_json", parameters: { md_text: md } });
    expect(JSON.parse(await text(files, json.files[0]))).toEqual([
      { Item: "Payment", Risk: "low" },
      { Item: "Term, renewal", Risk: '"high"' },
    ]);
    await expect(
      tools.invoke({ providerId: id, toolName: "md_to_csv", parameters: { md_text: "no table" } }),
    ).rejects.toMatchObject({
      code: "tool.invalid_parameter",
    });
  });

  it("md_to_codeblock saves code blocks by language", async () => {
    const { files, tools } = setup();
    const r = await tools.invoke({
      providerId: id,
      toolName: "md_to_codeblock",
      parameters: { md_text: "x\n```python\nprint(1)\n```\n\n```bash\necho hi\n```" },
    });
    expect(r.files.map((f) => f.filename)).toEqual(["code_1.py", "code_2.sh"]);
    expect(await text(files, r.files[0])).toBe("print(1)\n");
  });

  it("md_to_pptx lays slides out as md_exporter (pandoc) does, and the deck reads back", async () => {
    const { files, tools } = setup();
    const deck = [
      "---",
      "title: Study Plan",
      "author: Ana",
      "---",
      "",
      "# Week 1",
      "",
      "## Goals",
      "",
      "- Learn **graphs**, trees, and sorting",
      "  - one nested point",
      "",
      "::: notes",
      "Start with a question.",
      ":::",
      "",
      "## Schedule",
      "",
      "| Day | Topic |",
      "|---|---|",
      "| Mon | Graphs |",
      "",
      "---",
      "",
      "Closing words & thanks.",
    ].join("\n");
    const r = await tools.invoke({
      providerId: id,
      toolName: "md_to_pptx",
      parameters: { md_text: deck, output_filename: "plan" },
    });
    const f = r.files[0] as FileValue;
    expect(f).toMatchObject({
      filename: "plan.pptx",
      extension: ".pptx",
      mime_type: "application/vnd.openxmlformats-officedocument.presentationml.presentation",
    });
    // Title slide from the front matter; "# Week 1" is above the slide level (## is followed by content):
    // a section slide; each "##" a slide; the rule starts an untitled one.
    expect(await docs.extract(f, await files.get(f))).toBe(
      [
        "## Slide 1\nStudy Plan\nAna",
        "## Slide 2\nWeek 1",
        "## Slide 3\nGoals\nLearn graphs, trees, and sorting\none nested point\nNotes: Start with a question.",
        "## Slide 4\nSchedule\nDay\nTopic\nMon\nGraphs",
        "## Slide 5\nClosing words & thanks.",
      ].join("\n\n"),
    );
    const zip = await JSZip.loadAsync(await files.get(f));
    expect(Object.keys(zip.files).filter((n) => /^ppt\/slides\/slide\d+\.xml$/.test(n))).toHaveLength(5);
    const slide3 = await zip.file("ppt/slides/slide3.xml")!.async("string");
    expect(slide3).toContain('<a:buChar char="');
    expect(slide3).toMatch(/<a:rPr[^>]*\bb="1"[^>]*>[\s\S]*?<a:t>graphs<\/a:t>/);
    // A fenced ```markdown wrapper is the document, not a code block; empty text is refused.
    const fenced = await tools.invoke({
      providerId: id,
      toolName: "md_to_pptx",
      parameters: { md_text: "```markdown\n# Only\n\ntext\n```" },
    });
    expect(await docs.extract(fenced.files[0]!, await files.get(fenced.files[0]!))).toBe("## Slide 1\nOnly\ntext");
    await expect(
      tools.invoke({ providerId: id, toolName: "md_to_pptx", parameters: { md_text: "  " } }),
    ).rejects.toMatchObject({ code: "tool.invalid_parameter" });
  });

  it("unavailable exporters say so with the configuration that would serve one", async () => {
    const { tools } = setup();
    const err = await tools
      .invoke({ providerId: id, toolName: "md_to_xlsx", parameters: { md_text: md } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(NotConfiguredError);
    expect(err.code).toBe("tool.not_configured");
    expect(err.message).toContain("md_to_xlsx");
    expect(err.message).toContain("weft.config.json");
    expect(err.message).not.toContain("registerExternalTool");
  });
});

describe("echarts", () => {
  const id = "langgenius/echarts/echarts";

  it("bar_chart gives the ```echarts text, the option as json, and SVG + PNG files", async () => {
    const { files, tools } = setup();
    const r = await tools.invoke({
      providerId: id,
      toolName: "bar_chart",
      parameters: { data: "10;20;30", x_axis: "Mon;Tue;Wed", title: "Visits" },
    });
    const option = r.json[0] as Record<string, any>;
    expect(option.xAxis.data).toEqual(["Mon", "Tue", "Wed"]);
    expect(option.series[0]).toEqual({ type: "bar", data: [10, 20, 30] });
    expect(option.title.text).toBe("Visits");
    expect(r.text.trim().startsWith("```echarts\n")).toBe(true);
    expect(JSON.parse(r.text.trim().slice("```echarts\n".length, -3))).toEqual(option);
    expect(r.files.map((f) => f.mime_type)).toEqual(["image/svg+xml", "image/png"]);
    const svg = await text(files, r.files[0]);
    expect(svg).toContain("Visits");
    expect(svg).toContain("Tue");
    expect(pngSize(await files.get(r.files[1] as FileValue))).toEqual({ width: 800, height: 500 });
  });

  it("pie_chart takes categories; line_chart accepts JSON arrays from an LLM", async () => {
    const { tools } = setup();
    const pie = await tools.invoke({
      providerId: id,
      toolName: "pie_chart",
      parameters: { data: "1;2", categories: "A;B", title: "" },
    });
    expect((pie.json[0] as any).series[0].data).toEqual([
      { name: "A", value: 1 },
      { name: "B", value: 2 },
    ]);
    const line = await tools.invoke({
      providerId: id,
      toolName: "line_chart",
      parameters: { data: "[1, 2.5]", x_axis: '["q1","q2"]', title: "T" },
    });
    expect((line.json[0] as any).series[0]).toEqual({ type: "line", data: [1, 2.5] });
  });

  it("mismatched or non-numeric data is a typed error naming the parameter", async () => {
    const { tools } = setup();
    await expect(
      tools.invoke({ providerId: id, toolName: "bar_chart", parameters: { data: "1;2", x_axis: "a;b;c", title: "t" } }),
    ).rejects.toMatchObject({ code: "tool.invalid_parameter", details: { parameter: "x_axis" } });
    await expect(
      tools.invoke({ providerId: id, toolName: "bar_chart", parameters: { data: "1;two", x_axis: "a;b", title: "t" } }),
    ).rejects.toMatchObject({ code: "tool.invalid_parameter", details: { parameter: "data" } });
  });

  it("the legacy built-in chart provider draws a PNG only", async () => {
    const { tools } = setup();
    const r = await tools.invoke({
      providerId: "chart",
      toolName: "bar_chart",
      parameters: { data: "3;4", x_axis: "a;b" },
    });
    expect(r.text).toBe("");
    expect(r.files.map((f) => f.mime_type)).toEqual(["image/png"]);
  });
});

describe("tools that need outside services", () => {
  it("raise tool.not_configured naming the provider, the tool and what it needs", async () => {
    const { tools } = setup();
    const err = await tools
      .invoke({ providerId: "tavily", toolName: "tavily_search", parameters: { query: "x" } })
      .catch((e) => e);
    expect(err).toBeInstanceOf(NotConfiguredError);
    expect(err.code).toBe("tool.not_configured");
    expect(err.message).toContain("tavily/tavily_search");
    expect(err.message).toContain("API key");
    expect(err.message).not.toContain("registerExternalTool");
    // The snippet a user pastes into weft.config.json: an MCP server and the map entry onto it.
    const snippet = JSON.parse(err.message.slice(err.message.indexOf("{")));
    expect(snippet.tools.map["tavily/tavily_search"]).toMatch(/^tavily\//);
    expect(Object.keys(snippet.tools.mcp)).toEqual(["tavily"]);
    for (const [providerId, toolName] of [
      ["langgenius/dalle/dalle", "dalle3"],
      ["audio", "tts"],
      ["jina", "jina_reader"],
      ["webscraper", "webscraper"],
      ["duckduckgo", "ddgo_search"],
    ] as const) {
      await expect(tools.invoke({ providerId, toolName, parameters: {} })).rejects.toMatchObject({
        code: "tool.not_configured",
        details: { provider: providerId, tool: toolName },
      });
    }
    const wf = await tools
      .invoke({
        providerId: "2ebe9c1d-46ef-4735-93f1-e901de242584",
        providerType: "workflow",
        toolName: "imageSearch",
        parameters: {},
      })
      .catch((e) => e);
    expect(wf.message).toContain("workflow published as a tool");
  });

  it("registerExternalTool plugs a provider in under either id spelling, and unplugs", async () => {
    const { files, tools } = setup();
    const seen: unknown[] = [];
    const off = tools.registerExternalTool("langgenius/tavily/tavily", "tavily_search", async (call) => {
      seen.push(call.args);
      const f = await call.files.put(new TextEncoder().encode("r"), { filename: "r.txt", mimeType: "text/plain" });
      return {
        text: `results for ${String(call.parameters.query)}`,
        json: [{ hits: 1 }],
        files: [f],
        variables: { count: 1 },
      };
    });
    const r = await tools.invoke({
      providerId: "tavily",
      toolName: "tavily_search",
      parameters: { query: "weft" },
      configurations: { max_results: 5 },
    });
    expect(r.text).toBe("results for weft");
    expect(r.json).toEqual([{ hits: 1 }]);
    expect(r.variables).toEqual({ count: 1 });
    expect(await text(files, r.files[0])).toBe("r");
    expect(seen).toEqual([{ max_results: 5, query: "weft" }]);
    off();
    await expect(
      tools.invoke({ providerId: "tavily", toolName: "tavily_search", parameters: {} }),
    ).rejects.toMatchObject({
      code: "tool.not_configured",
    });
  });

  it("a wildcard registration covers every tool of a provider and overrides built-ins", async () => {
    const { tools } = setup();
    tools.registerExternalTool("time", "*", async (call) => ({ text: `stub ${call.toolName}` }));
    expect((await tools.invoke({ providerId: "time", toolName: "current_time", parameters: {} })).text).toBe(
      "stub current_time",
    );
  });
});

describe("catalogue", () => {
  it("normalises plugin ids to provider keys", () => {
    expect(providerKey("hjlarry/mermaid_converter/mermaid_converter")).toBe("mermaid_converter");
    expect(providerKey("time")).toBe("time");
  });

  it("lists built-in tools as JSON-schema specs that resolve back", () => {
    const { tools } = setup();
    const specs = tools.list();
    const bar = specs.find((s) => s.name === "echarts__bar_chart");
    expect(bar?.parameters).toMatchObject({ type: "object", required: ["title", "data", "x_axis"] });
    const current = specs.find((s) => s.name === "time__current_time");
    // Form settings (time zone, format) are not offered to the model.
    expect(current?.parameters).toMatchObject({ properties: {}, required: [] });
    expect(tools.resolveSpec("md_exporter__md_to_docx")).toEqual({ providerId: "md_exporter", toolName: "md_to_docx" });
    for (const s of specs) expect(s.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
  });
});

describe("invocation by spec name", () => {
  it("a call with no provider and a list() name reaches the tool (agent nodes offering every tool)", async () => {
    const { tools } = setup();
    const r = await tools.invoke({ providerId: "", toolName: "time__current_time", parameters: {} });
    expect(r.text).toBe("2026-03-15 04:05:06 UTC");
    expect(tools.parameterSpecs("langgenius/echarts/echarts", "pie_chart")?.map((p) => p.name)).toEqual([
      "title",
      "data",
      "categories",
    ]);
  });
});

describe("createLocalServices", () => {
  it("wires one file store into the tool service and follows the given clock", async () => {
    const { createLocalServices } = await import("../../src/tools/index.js");
    const s = createLocalServices({ now: () => PINNED });
    const r = await s.tools.invoke({ providerId: "md_exporter", toolName: "md_to_md", parameters: { md_text: "# x" } });
    expect(new TextDecoder().decode(await s.files.get(r.files[0] as FileValue))).toBe("# x");
    expect(await s.documents.extract(r.files[0] as FileValue, await s.files.get(r.files[0] as FileValue))).toBe("# x");
    expect((await s.tools.invoke({ providerId: "time", toolName: "current_time", parameters: {} })).text).toBe(
      "2026-03-15 04:05:06 UTC",
    );
  });
});

describe("json_process", () => {
  it("parse extracts with JSONPath and prints like Python (True, json.dumps spacing, ensure_ascii)", async () => {
    const { tools } = setup();
    const content = JSON.stringify({
      nextSearchTopic: "量子",
      shouldContinue: true,
      items: [{ n: 1 }, { n: 2 }],
      none: null,
    });
    const parse = (json_filter: string, ensure_ascii: unknown = 1) =>
      tools.invoke({
        providerId: "json_process",
        toolName: "parse",
        parameters: { content, json_filter },
        configurations: { ensure_ascii },
      });
    expect((await parse("shouldContinue")).text).toBe("True");
    expect((await parse("$.nextSearchTopic")).text).toBe("量子");
    expect((await parse("items[*].n")).text).toBe("[1, 2]");
    expect((await parse("$.items[1]")).text).toBe('{"n": 2}');
    expect((await parse("none")).text).toBe("None");
    expect((await parse("absent")).text).toBe("");
    expect((await parse("")).text).toContain('"nextSearchTopic": "\\u91cf\\u5b50"');
    expect((await parse("", 0)).text).toContain('"nextSearchTopic": "量子"');
    await expect(
      tools.invoke({ providerId: "json_process", toolName: "parse", parameters: { content: "{oops" } }),
    ).rejects.toMatchObject({ code: "tool.invalid_parameter", details: { parameter: "content" } });
  });
});

describe("plugged-in tools offered to tool-calling nodes", () => {
  it("a registration with a spec appears in list() and is callable by its spec name", async () => {
    const { tools } = setup();
    tools.registerExternalTool(
      "langgenius/tavily/tavily",
      "tavily_search",
      async (call) => ({ text: `hits for ${String(call.parameters.query)}` }),
      {
        description: "Web search",
        parameters: { type: "object", properties: { query: { type: "string" } }, required: ["query"] },
      },
    );
    const spec = tools.list().find((s) => s.name === "tavily__tavily_search");
    expect(spec?.description).toBe("Web search");
    const r = await tools.invoke({ providerId: "", toolName: "tavily__tavily_search", parameters: { query: "q" } });
    expect(r.text).toBe("hits for q");
  });
});
