import type { FileValue } from "../../ir/services.js";
import { ToolError } from "../errors.js";
import { type BuiltinTool, paramError, safeFilename, str, type ToolContext } from "./types.js";

// The converters (marked, docx, pptxgenjs, PDF fonts) load when an export runs, not with the tool list, so a
// run of a workflow that exports nothing does not pay for loading them.
const markdown = () => import("../render/markdown.js");

const MD_TEXT = {
  name: "md_text",
  type: "string" as const,
  required: true,
  form: "llm" as const,
  description: "Markdown text",
};
const FILENAME = {
  name: "output_filename",
  type: "string" as const,
  required: false,
  form: "llm" as const,
  description: "file name without extension",
};

function mdText(ctx: ToolContext): string {
  const md = str(ctx, "md_text");
  if (!md.trim()) throw paramError(ctx, "md_text", "is empty");
  return md;
}

function fileName(ctx: ToolContext, ext: string, suffix = ""): string {
  const raw = str(ctx, "output_filename")
    .trim()
    .replace(new RegExp(`${ext.replace(".", "\\.")}$`, "i"), "");
  return safeFilename(raw ? `${raw}${suffix}` : "", `output${suffix}`, ext);
}

async function title(md: string): Promise<string | undefined> {
  return /^\s*#{1,6}\s+(.+?)\s*#*\s*$/m.exec((await markdown()).stripOuterFence(md))?.[1];
}

function csvCell(s: string): string {
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

async function tablesOrFail(ctx: ToolContext, md: string): Promise<string[][][]> {
  const tables = (await markdown()).markdownTables(md);
  if (tables.length === 0) {
    throw new ToolError(
      "tool.invalid_parameter",
      `tool ${ctx.providerId}/${ctx.toolName}: md_text contains no markdown table`,
      {
        provider: ctx.providerId,
        tool: ctx.toolName,
        parameter: "md_text",
      },
    );
  }
  return tables;
}

const CODE_EXTENSIONS: Record<string, [string, string]> = {
  python: [".py", "text/x-python"],
  py: [".py", "text/x-python"],
  javascript: [".js", "text/javascript"],
  js: [".js", "text/javascript"],
  typescript: [".ts", "text/plain"],
  ts: [".ts", "text/plain"],
  bash: [".sh", "application/x-sh"],
  sh: [".sh", "application/x-sh"],
  shell: [".sh", "application/x-sh"],
  json: [".json", "application/json"],
  yaml: [".yaml", "application/yaml"],
  yml: [".yaml", "application/yaml"],
  html: [".html", "text/html"],
  css: [".css", "text/css"],
  sql: [".sql", "application/sql"],
  java: [".java", "text/plain"],
  go: [".go", "text/plain"],
  rust: [".rs", "text/plain"],
  c: [".c", "text/plain"],
  cpp: [".cpp", "text/plain"],
  xml: [".xml", "application/xml"],
  markdown: [".md", "text/markdown"],
  mermaid: [".mmd", "text/plain"],
};

const put = (ctx: ToolContext, bytes: Uint8Array | string, filename: string, mimeType: string): Promise<FileValue> =>
  ctx.files.put(typeof bytes === "string" ? new TextEncoder().encode(bytes) : bytes, { filename, mimeType });

function tool(name: string, label: string, description: string, run: BuiltinTool["run"]): BuiltinTool {
  return { provider: "md_exporter", name, label, description, parameters: [MD_TEXT, FILENAME], run };
}

/** bowenliang123/md_exporter: Markdown → DOCX, PDF, PPTX, HTML, MD, CSV, JSON and code files. */
export const mdExporterTools: BuiltinTool[] = [
  tool("md_to_docx", "Markdown to DOCX", "Export Markdown as a Word document.", async (ctx) => {
    const md = mdText(ctx);
    const { markdownToDocx } = await import("../render/md-docx.js");
    const bytes = await markdownToDocx(md, await title(md));
    return {
      files: [
        await put(
          ctx,
          bytes,
          fileName(ctx, ".docx"),
          "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        ),
      ],
    };
  }),
  tool("md_to_pdf", "Markdown to PDF", "Export Markdown as a PDF document.", async (ctx) => {
    const md = mdText(ctx);
    const { markdownToPdf } = await import("../render/md-pdf.js");
    return {
      files: [await put(ctx, await markdownToPdf(md, await title(md)), fileName(ctx, ".pdf"), "application/pdf")],
    };
  }),
  tool("md_to_pptx", "Markdown to PPTX", "Export Markdown as a PowerPoint presentation.", async (ctx) => {
    const md = mdText(ctx);
    const { markdownToPptx } = await import("../render/md-pptx.js");
    const bytes = await markdownToPptx(md, await title(md));
    return {
      files: [
        await put(
          ctx,
          bytes,
          fileName(ctx, ".pptx"),
          "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ),
      ],
    };
  }),
  tool("md_to_html", "Markdown to HTML", "Export Markdown as an HTML file.", async (ctx) => {
    const md = mdText(ctx);
    const html = (await markdown()).markdownToHtmlDocument(md, await title(md));
    return { files: [await put(ctx, html, fileName(ctx, ".html"), "text/html")] };
  }),
  tool("md_to_html_text", "Markdown to HTML text", "Convert Markdown to HTML and return it as text.", async (ctx) => {
    const md = mdText(ctx);
    return { text: (await markdown()).markdownToHtmlDocument(md, await title(md)) };
  }),
  tool("md_to_md", "Markdown to MD file", "Save Markdown text as a .md file.", async (ctx) => {
    const text = (await markdown()).stripOuterFence(mdText(ctx));
    return { files: [await put(ctx, text, fileName(ctx, ".md"), "text/markdown")] };
  }),
  tool("md_to_csv", "Markdown table to CSV", "Export each Markdown table as a CSV file.", async (ctx) => {
    const tables = await tablesOrFail(ctx, mdText(ctx));
    const files = await Promise.all(
      tables.map((rows, i) =>
        put(
          ctx,
          `${rows.map((r) => r.map(csvCell).join(",")).join("\r\n")}\r\n`,
          fileName(ctx, ".csv", tables.length > 1 ? `_${i + 1}` : ""),
          "text/csv",
        ),
      ),
    );
    return { files };
  }),
  tool(
    "md_to_json",
    "Markdown table to JSON",
    "Export each Markdown table as a JSON array of row objects.",
    async (ctx) => {
      const tables = await tablesOrFail(ctx, mdText(ctx));
      const records = tables.map(([header = [], ...rows]) =>
        rows.map((r) => Object.fromEntries(header.map((h, i) => [h || `column_${i + 1}`, r[i] ?? ""]))),
      );
      const files = await Promise.all(
        records.map((rec, i) =>
          put(
            ctx,
            JSON.stringify(rec, null, 2),
            fileName(ctx, ".json", records.length > 1 ? `_${i + 1}` : ""),
            "application/json",
          ),
        ),
      );
      return { files };
    },
  ),
  tool(
    "md_to_codeblock",
    "Markdown code blocks to files",
    "Save each fenced code block as a file named by its language.",
    async (ctx) => {
      const blocks = (await markdown()).markdownCodeBlocks(mdText(ctx));
      if (blocks.length === 0) throw paramError(ctx, "md_text", "contains no fenced code block");
      const files = await Promise.all(
        blocks.map((b, i) => {
          const [ext, mime] = CODE_EXTENSIONS[b.lang] ?? [".txt", "text/plain"];
          return put(ctx, b.text.endsWith("\n") ? b.text : `${b.text}\n`, safeFilename("", `code_${i + 1}`, ext), mime);
        }),
      );
      return { files };
    },
  ),
];

/** md_exporter tools that need converters this build does not carry. */
export const MD_EXPORTER_UNAVAILABLE = [
  "md_to_xlsx",
  "md_to_png",
  "md_to_ipynb",
  "md_to_xml",
  "md_to_latex",
  "md_to_linked_image",
  "md_to_mermaid",
];
