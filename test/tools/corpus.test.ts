import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { NotConfiguredError, WeftError } from "../../src/ir/errors.js";
import { documentExtractorNode } from "../../src/nodes/document-extractor.js";
import { type ToolConfig, toolNode } from "../../src/nodes/tool.js";
import { LocalToolService } from "../../src/tools/builtin/index.js";
import { MemoryFileService } from "../../src/tools/files.js";
import { corpusPath } from "../support/corpus.js";
import { fakeCtx } from "./fake-ctx.js";

const CORPUS = [corpusPath("dify-dsl")].find(existsSync);

interface Found {
  file: string;
  id: string;
  data: Record<string, unknown>;
}

function corpusNodes(type: string): Found[] {
  const out: Found[] = [];
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ya?ml|dsl)$/i.test(e.name)) {
        let doc: any;
        try {
          doc = parse(readFileSync(p, "utf8"));
        } catch {
          continue;
        }
        for (const n of doc?.workflow?.graph?.nodes ?? []) {
          if (n?.data?.type === type) {
            const { type: _t, title: _ti, ...data } = n.data;
            out.push({ file: p, id: String(n.id), data });
          }
        }
      }
    }
  };
  if (CORPUS) walk(CORPUS);
  return out;
}

/** Plausible values for what a real tool node reads, chosen by the parameter it feeds. */
function sample(param: string): string {
  if (param === "data") return "3;1;2";
  if (param === "x_axis" || param === "categories") return "a;b;c";
  if (param === "mermaid_code") return "graph TD\n  A[Input] --> B[Output]";
  if (param === "md_text") return "# Report\n\n| k | v |\n|---|---|\n| a | 1 |\n\n```python\nprint(1)\n```";
  if (param === "title") return "Title";
  if (param === "content") return '{"nextSearchTopic": "x", "shouldContinue": true}';
  return "sample";
}

describe.skipIf(!CORPUS)("real tool and document-extractor nodes from the corpus", () => {
  const tools = corpusNodes("tool");
  const extractors = corpusNodes("document-extractor");

  it("finds them", () => {
    expect(tools.length).toBeGreaterThan(100);
    expect(extractors.length).toBeGreaterThan(10);
  });

  it("every tool node config parses and yields inputs", () => {
    const failures = tools
      .map((t) => ({ t, r: toolNode.configSchema.safeParse(t.data) }))
      .filter((x) => !x.r.success)
      .map((x) => `${x.t.file}#${x.t.id}: ${x.r.error?.issues[0]?.path.join(".")} ${x.r.error?.issues[0]?.message}`);
    expect(failures).toEqual([]);
    for (const t of tools) {
      const c = toolNode.configSchema.parse(t.data) as ToolConfig;
      for (const ref of toolNode.inputs(c, { id: t.id, type: "tool", title: "", config: t.data })) {
        expect(ref.selector.length).toBeGreaterThanOrEqual(2);
      }
    }
  });

  it("every document-extractor config parses", () => {
    for (const d of extractors)
      expect(documentExtractorNode.configSchema.safeParse(d.data).success, `${d.file}#${d.id}`).toBe(true);
  });

  it("tool nodes with a built-in run offline; the rest fail with tool.not_configured", async () => {
    const files = new MemoryFileService();
    const service = new LocalToolService({ files, now: () => new Date("2026-01-01T00:00:00Z") });
    const ran = new Set<string>();
    const notConfigured = new Set<string>();
    for (const t of tools) {
      const c = toolNode.configSchema.parse(t.data) as ToolConfig;
      // Build a pool holding a plausible value for each selector the node reads.
      const pool: Record<string, Record<string, unknown>> = {};
      for (const [name, input] of Object.entries(c.tool_parameters)) {
        for (const ref of toolNode.inputs(
          { ...c, tool_parameters: { [name]: input }, tool_configurations: {} },
          { id: t.id, type: "tool", title: "", config: {} },
        )) {
          const [head = "", v = ""] = ref.selector;
          pool[head] ??= {};
          (pool[head] as Record<string, unknown>)[v] = sample(name);
        }
      }
      const ctx = fakeCtx({
        node: { id: t.id, type: "tool", title: String(t.data.tool_label ?? "") },
        config: c,
        pool,
        services: { tools: service, files },
      });
      const key = `${c.provider_id}/${c.tool_name}`;
      try {
        const r = await toolNode.execute!(ctx);
        expect(typeof r.outputs.text).toBe("string");
        expect(Array.isArray(r.outputs.files)).toBe(true);
        expect((r.outputs.json as unknown[]).length).toBeGreaterThan(0);
        ran.add(key);
      } catch (e) {
        if (e instanceof NotConfiguredError) {
          expect(e.code).toBe("tool.not_configured");
          notConfigured.add(key);
        } else {
          expect(e, `${t.file}#${t.id} ${key}: ${(e as Error).message}`).toBeInstanceOf(WeftError);
          throw e;
        }
      }
    }
    expect([...ran].sort()).toEqual(
      expect.arrayContaining([
        "time/current_time",
        "langgenius/echarts/echarts/bar_chart",
        "langgenius/echarts/echarts/line_chart",
        "langgenius/echarts/echarts/pie_chart",
        "bowenliang123/md_exporter/md_exporter/md_to_docx",
        "bowenliang123/md_exporter/md_exporter/md_to_pdf",
        "bowenliang123/md_exporter/md_exporter/md_to_html",
        "hjlarry/mermaid_converter/mermaid_converter/mermaid_converter",
        "json_process/parse",
      ]),
    );
    expect(notConfigured.has("tavily/tavily_search")).toBe(true);
  }, 120_000);
});
