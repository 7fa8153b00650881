import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { NodeExecutionError, NotConfiguredError, WeftError } from "../ir/errors.js";
import type { ExecContext } from "../ir/registry.js";
import type { FileValue } from "../ir/services.js";
import { commonFields, defineNode, Sel, SOURCE } from "./common.js";

const DocumentExtractorConfig = z
  .object({
    ...commonFields,
    variable_selector: Sel.min(1),
    /** Written by the UI to match the input's type; decides the declared output type. */
    is_array_file: z.boolean().default(false),
  })
  .loose();
export type DocumentExtractorConfig = z.infer<typeof DocumentExtractorConfig>;

function label(ctx: ExecContext<DocumentExtractorConfig>): string {
  return `document-extractor node "${ctx.node.title || ctx.node.id}"`;
}

function isFile(v: unknown): v is FileValue {
  if (!v || typeof v !== "object" || Array.isArray(v)) return false;
  const o = v as Record<string, unknown>;
  return (
    o.dify_model_identity === "__dify__file__" ||
    (typeof o.transfer_method === "string" && typeof o.filename === "string")
  );
}

async function extractOne(ctx: ExecContext<DocumentExtractorConfig>, file: unknown, index?: number): Promise<string> {
  const where = index === undefined ? "" : ` (item ${index})`;
  if (!isFile(file)) {
    throw new NodeExecutionError(
      "document.not_a_file",
      `${label(ctx)}: ${ctx.config.variable_selector.join(".")}${where} is not a file: ${JSON.stringify(file)?.slice(0, 80)}`,
      ctx.node.id,
      { field: "variable_selector" },
    );
  }
  const { files, documents } = ctx.services;
  if (!files || !documents) {
    throw new NotConfiguredError(
      "documents.not_configured",
      `${label(ctx)} needs a ${files ? "document extraction" : "file store"} service, and none is configured`,
      { nodeId: ctx.node.id },
    );
  }
  try {
    return await documents.extract(file, await files.get(file), { signal: ctx.signal });
  } catch (err) {
    if (err instanceof NodeExecutionError || err instanceof NotConfiguredError) throw err;
    const code = err instanceof WeftError ? err.code : "document.extract_failed";
    const details = err instanceof WeftError ? err.details : {};
    throw new NodeExecutionError(
      code,
      `${label(ctx)}${where}: ${(err as Error)?.message ?? String(err)}`,
      ctx.node.id,
      details,
    );
  }
}

export const documentExtractorNode = defineNode<DocumentExtractorConfig>({
  type: "document-extractor",
  label: "Document Extractor",
  category: "transform",
  purpose:
    "Extracts the text of a file (or of each file in a list): txt, markdown, html, csv, json, yaml, pdf, docx, xlsx, eml, vtt, properties.",
  notes: [
    "variable_selector names a file or array[file] (e.g. a start input of type file / file-list, or sys.files).",
    "Output text is a string for one file and array[string] for a list; set is_array_file accordingly.",
    "CSV and spreadsheet tables come out as markdown tables.",
  ],
  configSchema: DocumentExtractorConfig,
  example: { variable_selector: ["start", "file"], is_array_file: false },
  outputs: (c) => [{ name: "text", type: c.is_array_file ? "array[string]" : "string" }],
  inputs: (c) => [
    { selector: c.variable_selector, field: "variable_selector", expects: c.is_array_file ? "array[file]" : "file" },
  ],
  ports: () => SOURCE,
  rules(c, ctx) {
    const out: Diagnostic[] = [];
    const t = ctx.typeOf(c.variable_selector);
    if (t === undefined || t === "any" || t === "array[any]") return out;
    if (t !== "file" && t !== "array[file]") {
      out.push({
        code: "document_extractor.not_file",
        severity: "error",
        nodeId: ctx.node.id,
        field: "variable_selector",
        message: `${c.variable_selector.join(".")} is ${t}; the document extractor reads a file or array[file]`,
      });
    } else if ((t === "array[file]") !== c.is_array_file) {
      out.push({
        code: "document_extractor.array_mismatch",
        severity: "warning",
        nodeId: ctx.node.id,
        field: "is_array_file",
        message: `${c.variable_selector.join(".")} is ${t} but is_array_file is ${c.is_array_file}; text will be ${t === "array[file]" ? "array[string]" : "string"}`,
      });
    }
    return out;
  },
  async execute(ctx) {
    const sel = ctx.config.variable_selector;
    const r = ctx.read(sel);
    if (!r.found) {
      throw new NodeExecutionError(
        "document.missing_variable",
        `${label(ctx)}: file variable ${sel.join(".")} does not exist`,
        ctx.node.id,
        {
          field: "variable_selector",
          selector: sel,
        },
      );
    }
    const value = r.value;
    if (Array.isArray(value)) {
      const text: string[] = [];
      for (const [i, f] of value.entries()) text.push(await extractOne(ctx, f, i));
      return { outputs: { text } };
    }
    if (value === null || value === undefined) {
      if (ctx.config.is_array_file) return { outputs: { text: [] } };
      throw new NodeExecutionError("document.no_file", `${label(ctx)}: ${sel.join(".")} holds no file`, ctx.node.id, {
        field: "variable_selector",
      });
    }
    return { outputs: { text: await extractOne(ctx, value) } };
  },
});
