import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { NodeExecutionError, NotConfiguredError, WeftError } from "../ir/errors.js";
import type { ExecContext, InputRef, TextField } from "../ir/registry.js";
import { templateRefs } from "../ir/selector.js";
import { normaliseType, type ValueType } from "../ir/types.js";
import type { OutputDecl } from "../ir/workflow.js";
import { commonFields, defineNode, SOURCE } from "./common.js";

const INPUT_TYPES = ["mixed", "variable", "constant"] as const;

/** `{type, value}` of a tool parameter (and of a v2 tool configuration). */
const ToolInput = z
  .object({ type: z.enum(INPUT_TYPES).default("constant"), value: z.unknown().optional() })
  .loose()
  .superRefine((v, ctx) => {
    if (v.type === "variable") {
      const ok =
        Array.isArray(v.value) &&
        v.value.length > 0 &&
        v.value.every((x) => typeof x === "string" || typeof x === "number");
      if (!ok)
        ctx.addIssue({
          code: "custom",
          message: "a variable parameter's value must be a selector (a list of strings)",
        });
    }
    if (v.type === "mixed" && v.value !== undefined && v.value !== null && typeof v.value !== "string") {
      ctx.addIssue({ code: "custom", message: "a mixed parameter's value must be a template string" });
    }
  });
type ToolInput = z.infer<typeof ToolInput>;

/** Dify stores each parameter's schema on the node (`paramSchemas`) in UI exports. */
const ParamSchema = z
  .object({ name: z.string(), required: z.boolean().nullish(), form: z.string().nullish(), type: z.string().nullish() })
  .loose();

const ToolConfig = z
  .object({
    ...commonFields,
    provider_id: z.string().min(1),
    provider_type: z.string().default("builtin"),
    provider_name: z.string().optional(),
    tool_name: z.string().min(1),
    tool_label: z.string().optional(),
    tool_description: z.string().optional(),
    /** v2 files: `{type, value}` per setting; older files: plain scalars. */
    tool_configurations: z
      .record(z.string(), z.unknown())
      .nullish()
      .transform((v) => v ?? {}),
    tool_parameters: z
      .record(z.string(), ToolInput)
      .nullish()
      .transform((v) => v ?? {}),
    tool_node_version: z.union([z.string(), z.number()]).nullish(),
    plugin_unique_identifier: z.string().nullish(),
    credential_id: z.string().nullish(),
    paramSchemas: z.array(ParamSchema).nullish(),
    output_schema: z.record(z.string(), z.unknown()).nullish(),
  })
  .loose();
export type ToolConfig = z.infer<typeof ToolConfig>;

/** A v2 configuration entry, told apart from a legacy scalar (or a constant that happens to be an object). */
function wrapped(v: unknown): ToolInput | undefined {
  if (!v || typeof v !== "object" || Array.isArray(v)) return undefined;
  const o = v as Record<string, unknown>;
  if (!(INPUT_TYPES as readonly string[]).includes(o.type as string) || !("value" in o)) return undefined;
  const parsed = ToolInput.safeParse(o);
  return parsed.success ? parsed.data : undefined;
}

function inputRefs(input: ToolInput, field: string, optional: boolean): InputRef[] {
  if (input.type === "variable" && Array.isArray(input.value)) {
    return [{ selector: input.value.map(String), field: `${field}.value`, ...(optional ? { optional: true } : {}) }];
  }
  if (input.type === "mixed" && typeof input.value === "string") {
    return templateRefs(input.value).map((r) => ({
      selector: r.selector,
      field: `${field}.value`,
      fromTemplate: true,
    }));
  }
  return [];
}

/** Is the parameter required? From the node's own schemas; else what serves the tool says; else assume so. */
function requiredness(c: ToolConfig, served?: Array<{ name: string; required: boolean }>): (name: string) => boolean {
  const schemas = new Map((c.paramSchemas ?? []).map((s) => [s.name, s.required === true]));
  const fromService = new Map((served ?? []).map((s) => [s.name, s.required]));
  return (name) => schemas.get(name) ?? fromService.get(name) ?? true;
}

function label(ctx: ExecContext<ToolConfig>): string {
  return `tool node "${ctx.node.title || ctx.node.id}" (${ctx.config.provider_id}/${ctx.config.tool_name})`;
}

/** Python's `str()` of a scalar, which is what Dify feeds its template renderer for constants. */
function pyStr(v: unknown): string {
  if (v === null || v === undefined) return "None";
  if (v === true) return "True";
  if (v === false) return "False";
  if (typeof v === "string") return v;
  if (typeof v === "number") return String(v);
  // Python would print a repr with single quotes; JSON is what a tool can actually parse.
  return JSON.stringify(v);
}

/**
 * variable → the value read (absent: not found). Parameters: mixed and constant both go through the
 * template renderer as text, as Dify does (`convert_template(str(value))`), so a constant 5 arrives
 * as "5" and the tool converts it. Configurations keep constants as written.
 */
function resolveInput(
  ctx: ExecContext<ToolConfig>,
  input: ToolInput,
  kind: "parameter" | "configuration",
): { found: boolean; value?: unknown } {
  switch (input.type) {
    case "variable":
      return ctx.read((input.value as unknown[]).map(String));
    case "mixed":
      return { found: true, value: ctx.render(typeof input.value === "string" ? input.value : "") };
    default:
      return kind === "parameter"
        ? { found: true, value: ctx.render(pyStr(input.value)) }
        : { found: true, value: input.value };
  }
}

function outputSchemaDecls(schema: Record<string, unknown> | null | undefined): OutputDecl[] {
  const props = (schema?.properties ?? {}) as Record<string, { type?: unknown; items?: { type?: unknown } }>;
  return Object.entries(props)
    .filter(([name]) => !["text", "files", "json"].includes(name))
    .map(([name, p]) => {
      let type: ValueType = normaliseType(p?.type);
      if (p?.type === "array") type = normaliseType(`array[${String(p.items?.type ?? "any")}]`);
      return { name, type };
    });
}

export const toolNode = defineNode<ToolConfig>({
  type: "tool",
  label: "Tool",
  category: "tool",
  purpose:
    "Calls one tool (built-in, plugin, API, workflow or MCP) with parameters filled from templates, variables or constants; outputs its text, files and JSON.",
  notes: [
    "tool_parameters: {name: {type: mixed|variable|constant, value}}; mixed is a template string, variable a selector, constant a literal.",
    "Plugin tools use a three-part provider_id org/plugin/provider and still say provider_type: builtin.",
    "Offline built-ins: time (current_time ...), mermaid_converter, md_exporter (md_to_docx, md_to_pdf, md_to_html ...), echarts (bar_chart, line_chart, pie_chart; data and labels as 'a;b;c').",
    "A missing required variable parameter fails the node; a missing optional one is left out.",
    "Outputs: text (string), files (array[file]), json (array[object], [{data: []}] when the tool gave none).",
  ],
  configSchema: ToolConfig,
  example: {
    provider_id: "langgenius/echarts/echarts",
    provider_type: "builtin",
    provider_name: "langgenius/echarts/echarts",
    tool_name: "bar_chart",
    tool_label: "Bar Chart",
    tool_node_version: "2",
    tool_configurations: {},
    tool_parameters: {
      title: { type: "mixed", value: "Sales" },
      data: { type: "mixed", value: "{{#llm.text#}}" },
      x_axis: { type: "constant", value: "Q1;Q2;Q3;Q4" },
    },
  },
  outputs: (c) => [
    { name: "text", type: "string" },
    { name: "files", type: "array[file]" },
    { name: "json", type: "array[object]" },
    ...outputSchemaDecls(c.output_schema),
  ],
  inputs(c) {
    const required = requiredness(c);
    const out: InputRef[] = [];
    for (const [name, input] of Object.entries(c.tool_parameters)) {
      out.push(...inputRefs(input, `tool_parameters.${name}`, !required(name)));
    }
    for (const [name, raw] of Object.entries(c.tool_configurations)) {
      const input = wrapped(raw);
      if (input) out.push(...inputRefs(input, `tool_configurations.${name}`, true));
    }
    return out;
  },
  ports: () => SOURCE,
  texts(c) {
    const out: TextField[] = [];
    for (const [name, input] of Object.entries(c.tool_parameters)) {
      if (input.type === "mixed" && typeof input.value === "string" && input.value) {
        out.push({ field: `tool_parameters.${name}.value`, text: input.value, kind: "dify" });
      }
    }
    for (const [name, raw] of Object.entries(c.tool_configurations)) {
      const input = wrapped(raw);
      if (input?.type === "mixed" && typeof input.value === "string" && input.value) {
        out.push({ field: `tool_configurations.${name}.value`, text: input.value, kind: "dify" });
      }
    }
    return out;
  },
  rules(c, sctx) {
    const out: Diagnostic[] = [];
    if (c.provider_type === "api" || c.provider_type === "workflow" || c.provider_type === "app") {
      out.push({
        code: "tool.not_portable",
        severity: "warning",
        nodeId: sctx.node.id,
        field: "provider_id",
        message: `${c.provider_type} tool ${c.provider_id}/${c.tool_name} belongs to the workspace it came from; it runs only where that provider is configured`,
      });
    }
    return out;
  },
  async execute(ctx) {
    const c = ctx.config;
    // A server that cannot be asked now fails at the call itself, with its own error.
    const served = await ctx.services.tools?.describe?.(c.provider_id, c.tool_name).catch(() => undefined);
    const required = requiredness(c, served);
    const parameters: Record<string, unknown> = {};
    for (const [name, input] of Object.entries(c.tool_parameters)) {
      const r = resolveInput(ctx, input, "parameter");
      if (!r.found) {
        if (required(name)) {
          throw new NodeExecutionError(
            "tool.missing_variable",
            `${label(ctx)}: parameter "${name}" reads ${(input.value as unknown[]).join(".")}, which does not exist`,
            ctx.node.id,
            { field: `tool_parameters.${name}`, selector: input.value },
          );
        }
        continue;
      }
      parameters[name] = r.value;
    }
    const configurations: Record<string, unknown> = {};
    for (const [name, raw] of Object.entries(c.tool_configurations)) {
      const input = wrapped(raw);
      if (!input) {
        configurations[name] = raw;
        continue;
      }
      // Dify leaves out settings whose value is null (an unset optional form field).
      if (input.value === null || input.value === undefined) continue;
      const r = resolveInput(ctx, input, "configuration");
      if (r.found) configurations[name] = r.value;
    }

    const tools = ctx.services.tools;
    if (!tools) {
      throw new NotConfiguredError("tool.not_configured", `${label(ctx)}: no tool service is configured`, {
        nodeId: ctx.node.id,
        provider: c.provider_id,
        tool: c.tool_name,
      });
    }
    let result: Awaited<ReturnType<typeof tools.invoke>>;
    try {
      result = await tools.invoke({
        providerId: c.provider_id,
        providerType: c.provider_type,
        toolName: c.tool_name,
        parameters,
        configurations,
        signal: ctx.signal,
      });
    } catch (err) {
      if (err instanceof NodeExecutionError) throw err;
      if (err instanceof NotConfiguredError) {
        // Keep the class (callers treat "not configured" apart from failures); add where it happened.
        (err.details as Record<string, unknown>).nodeId = ctx.node.id;
        throw err;
      }
      const code = err instanceof WeftError ? err.code : "tool.invoke_failed";
      const details = err instanceof WeftError ? err.details : {};
      throw new NodeExecutionError(
        code,
        `${label(ctx)}: ${(err as Error)?.message ?? String(err)}`,
        ctx.node.id,
        details,
      );
    }
    const json = Array.isArray(result.json) && result.json.length > 0 ? result.json : [{ data: [] }];
    return {
      outputs: {
        ...(result.variables ?? {}),
        text: result.text ?? "",
        files: result.files ?? [],
        json,
      },
      meta: { tool: { provider_id: c.provider_id, tool_name: c.tool_name }, parameters, configurations },
    };
  },
});
