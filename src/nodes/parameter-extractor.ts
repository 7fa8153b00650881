import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import type { InputRef, TextField } from "../ir/registry.js";
import type { ChatMessage, ToolSpec } from "../ir/services.js";
import type { ValueType } from "../ir/types.js";
import { own } from "../util/own.js";
import { commonFields, defineNode, ModelSchema, Sel, SOURCE, templateInputs, textField } from "./common.js";
import { makeDiagnostic } from "./diagnostics.js";
import {
  appendToLastUser,
  callModel,
  historyText,
  MemorySchema,
  memoryInputs,
  memoryTexts,
  parseJsonObject,
  readHistory,
  redactParts,
  usageOutput,
  VisionSchema,
  visionInputs,
  visionParts,
} from "./model-call.js";

const ParameterSchema = z
  .object({
    name: z.string(),
    type: z.string().default("string"),
    options: z.array(z.unknown()).nullish(),
    description: z.string().nullish(),
    required: z.boolean().default(false),
  })
  .loose();
type Parameter = z.infer<typeof ParameterSchema>;

const ParameterExtractorConfig = z
  .object({
    ...commonFields,
    model: ModelSchema,
    query: Sel.default([]),
    instruction: z.string().nullish(),
    parameters: z.array(ParameterSchema).default([]),
    reasoning_mode: z.string().nullish(),
    memory: MemorySchema.nullish(),
    vision: VisionSchema.default({ enabled: false }),
  })
  .loose();
export type ParameterExtractorConfig = z.infer<typeof ParameterExtractorConfig>;

const RESERVED = new Set(["__reason", "__is_success"]);
const PARAM_TYPES = [
  "string",
  "number",
  "boolean",
  "array[string]",
  "array[number]",
  "array[object]",
  "array[boolean]",
] as const;
type ParamType = (typeof PARAM_TYPES)[number];
const LEGACY: Record<string, ParamType> = { bool: "boolean", select: "string" };

/** The parameter's type after legacy names are mapped (`bool` → boolean, `select` → string). */
export function paramType(raw: string): ParamType | undefined {
  const t = raw.trim();
  const legacy = own(LEGACY, t);
  if (legacy) return legacy;
  return (PARAM_TYPES as readonly string[]).includes(t) ? (t as ParamType) : undefined;
}

function peTexts(c: ParameterExtractorConfig): TextField[] {
  return [...textField("instruction", c.instruction ?? undefined), ...memoryTexts(c.memory)];
}

function peInputs(c: ParameterExtractorConfig): InputRef[] {
  const out: InputRef[] = [];
  if (c.query.length > 0) out.push({ selector: c.query, field: "query" });
  out.push(...templateInputs(c.instruction, "instruction"), ...memoryInputs(c.memory), ...visionInputs(c.vision));
  return out;
}

function paramJsonSchema(p: Parameter): Record<string, unknown> {
  const t = paramType(p.type) ?? "string";
  const s: Record<string, unknown> = {};
  if (t.startsWith("array[")) {
    s.type = "array";
    s.items = { type: t.slice(6, -1) };
  } else s.type = t;
  if (p.description) s.description = p.description;
  if (t === "string" && p.options && p.options.length > 0) s.enum = p.options.map(String);
  return s;
}

export function parametersSchema(params: Parameter[]): Record<string, unknown> {
  return {
    type: "object",
    properties: Object.fromEntries(params.map((p) => [p.name, paramJsonSchema(p)])),
    required: params.filter((p) => p.required).map((p) => p.name),
  };
}

const TOOL_NAME = "extract_parameters";

function isValid(t: ParamType, v: unknown): boolean {
  const scalar = (st: string, x: unknown) =>
    st === "string"
      ? typeof x === "string"
      : st === "number"
        ? typeof x === "number"
        : st === "boolean"
          ? typeof x === "boolean"
          : st === "object"
            ? !!x && typeof x === "object" && !Array.isArray(x)
            : false;
  if (t.startsWith("array[")) return Array.isArray(v) && v.every((x) => scalar(t.slice(6, -1), x));
  return scalar(t, v);
}

/** Dify's checks: as many values as parameters, required ones present, types and select options respected. */
function validate(params: Parameter[], result: Record<string, unknown>): string | undefined {
  if (Object.keys(result).length !== params.length) return "Invalid number of parameters";
  for (const p of params) {
    if (p.required && !(p.name in result)) return `Parameter ${p.name} is required`;
    const t = paramType(p.type) ?? "string";
    const v = result[p.name];
    if (!isValid(t, v)) return `Invalid value for parameter ${p.name}: expected ${t}, got ${JSON.stringify(v)}`;
    if (t === "string" && p.options && p.options.length > 0 && !p.options.map(String).includes(v as string)) {
      return `Invalid \`select\` value for parameter ${p.name}`;
    }
  }
  return undefined;
}

function defaultFor(t: ParamType): unknown {
  if (t.startsWith("array[")) return [];
  return t === "number" ? 0 : t === "boolean" ? false : "";
}

const UNSET = Symbol("unset");

function toNumber(v: unknown): number | typeof UNSET {
  if (typeof v === "boolean") return v ? 1 : 0;
  if (typeof v === "number" && Number.isFinite(v)) return v;
  if (typeof v === "string" && v.trim() !== "") {
    const n = v.includes(".") ? Number.parseFloat(v) : Number(v);
    return Number.isFinite(n) && (v.includes(".") || Number.isInteger(n)) ? n : UNSET;
  }
  return UNSET;
}

function coerceScalar(st: string, v: unknown, inArray: boolean): unknown {
  switch (st) {
    case "number":
      return toNumber(v);
    case "boolean":
      if (typeof v === "boolean") return v;
      return !inArray && typeof v === "number" ? v !== 0 : UNSET;
    case "string":
      return typeof v === "string" ? v : UNSET;
    case "object":
      return v && typeof v === "object" && !Array.isArray(v) ? v : UNSET;
    default:
      return UNSET;
  }
}

/** Each parameter in its declared type; what cannot be read as that type gets the type's default. */
export function transformResult(params: Parameter[], result: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of params) {
    const t = paramType(p.type) ?? "string";
    if (!(p.name in result)) {
      out[p.name] = defaultFor(t);
      continue;
    }
    const v = result[p.name];
    if (t.startsWith("array[")) {
      if (!Array.isArray(v)) {
        out[p.name] = defaultFor(t);
        continue;
      }
      const et = t.slice(6, -1);
      out[p.name] = v.map((x) => coerceScalar(et, x, true)).filter((x) => x !== UNSET);
      continue;
    }
    const c = coerceScalar(t, v, false);
    out[p.name] = c === UNSET ? defaultFor(t) : c;
  }
  return out;
}

function systemPrompt(
  mode: "function_call" | "prompt",
  instruction: string,
  history: string,
  schema: Record<string, unknown>,
): string {
  const lines = [
    "You extract structured information from the text the user gives you.",
    mode === "function_call"
      ? `Always call the \`${TOOL_NAME}\` function with the values you find; leave out a value only when the text does not contain it.`
      : "Answer with one JSON object holding the values you find, and nothing else. Leave out a value only when the text does not contain it.",
  ];
  if (mode === "prompt") lines.push("The object must match this JSON Schema:", JSON.stringify(schema));
  if (history)
    lines.push("The conversation so far, inside <histories></histories>:", `<histories>\n${history}\n</histories>`);
  if (instruction) lines.push("Follow these instructions:", `<instruction>\n${instruction}\n</instruction>`);
  return lines.join("\n");
}

export const parameterExtractorNode = defineNode<ParameterExtractorConfig>({
  type: "parameter-extractor",
  label: "Parameter Extractor",
  category: "llm",
  purpose:
    "Uses a language model to pull typed parameters (string, number, boolean, arrays) out of free text, by function calling or a JSON prompt.",
  notes: [
    "Each parameter becomes an output of its declared type; __is_success is 1 or 0 and __reason says why extraction failed.",
    "A failed extraction still succeeds: values fall back to 0, false, empty string or empty list.",
    "The names __reason and __is_success are reserved.",
  ],
  configSchema: ParameterExtractorConfig,
  example: {
    model: { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: { temperature: 0 } },
    query: ["start", "query"],
    parameters: [{ name: "city", type: "string", description: "The city asked about", required: true }],
    instruction: "",
    reasoning_mode: "prompt",
    vision: { enabled: false },
  },
  outputs: (c) => [
    ...c.parameters.map((p) => ({ name: p.name, type: (paramType(p.type) ?? "any") as ValueType })),
    { name: "__is_success", type: "number" },
    { name: "__reason", type: "string" },
    { name: "__usage", type: "object" },
  ],
  inputs: (c) => peInputs(c),
  ports: () => SOURCE,
  texts: (c) => peTexts(c),
  rules(c, sctx) {
    const id = sctx.node.id;
    const out: Diagnostic[] = [];
    if (c.parameters.length === 0) {
      out.push(makeDiagnostic(id, "parameter_extractor.no_parameters", "parameters", "no parameters are declared"));
    }
    const seen = new Set<string>();
    c.parameters.forEach((p, i) => {
      if (RESERVED.has(p.name)) {
        out.push(
          makeDiagnostic(
            id,
            "parameter_extractor.reserved_name",
            `parameters[${i}].name`,
            `"${p.name}" is a reserved name`,
          ),
        );
      }
      if (p.name.trim() === "") {
        out.push(
          makeDiagnostic(
            id,
            "parameter_extractor.empty_name",
            `parameters[${i}].name`,
            `parameter ${i + 1} has no name`,
          ),
        );
      } else if (seen.has(p.name)) {
        out.push(
          makeDiagnostic(
            id,
            "parameter_extractor.duplicate_name",
            `parameters[${i}].name`,
            `parameter "${p.name}" is declared twice`,
          ),
        );
      }
      seen.add(p.name);
      if (!paramType(p.type)) {
        out.push(
          makeDiagnostic(
            id,
            "parameter_extractor.invalid_type",
            `parameters[${i}].type`,
            `parameter "${p.name}" has type "${p.type}"; allowed: ${PARAM_TYPES.join(", ")}`,
          ),
        );
      }
    });
    if (c.reasoning_mode && c.reasoning_mode !== "function_call" && c.reasoning_mode !== "prompt") {
      out.push(
        makeDiagnostic(
          id,
          "parameter_extractor.reasoning_mode",
          "reasoning_mode",
          `reasoning_mode "${c.reasoning_mode}" is not function_call or prompt`,
        ),
      );
    }
    if (c.query.length === 0)
      out.push(makeDiagnostic(id, "parameter_extractor.no_query", "query", "no input variable is chosen"));
    return out;
  },
  async execute(ctx) {
    const c = ctx.config;
    const mode = c.reasoning_mode === "prompt" ? "prompt" : "function_call";
    const q = c.query.length > 0 ? ctx.read(c.query) : { found: false };
    const text = q.found && q.value != null ? (typeof q.value === "string" ? q.value : JSON.stringify(q.value)) : "";
    const schema = parametersSchema(c.parameters);
    const history = readHistory(ctx, c.memory);
    const messages: ChatMessage[] = [
      {
        role: "system",
        content: systemPrompt(
          mode,
          ctx.render(c.instruction ?? ""),
          c.memory ? historyText(history, c.memory) : "",
          schema,
        ),
      },
      { role: "user", content: `<context>\n${text}\n</context>` },
    ];
    appendToLastUser(messages, await visionParts(ctx, c.vision));
    const tools: ToolSpec[] | undefined =
      mode === "function_call"
        ? [{ name: TOOL_NAME, description: "Extract parameters from the natural language text", parameters: schema }]
        : undefined;
    const res = await callModel(ctx, { model: c.model, messages, tools });
    let error: string | undefined;
    const call = res.toolCalls.find((t) => t.name === TOOL_NAME) ?? res.toolCalls[0];
    let result: Record<string, unknown> | undefined = call ? call.arguments : parseJsonObject(res.text);
    if (!result) {
      result = {};
      error = "Failed to extract result from function call or text response, using empty result.";
    } else {
      error = validate(c.parameters, result);
    }
    return {
      outputs: {
        ...transformResult(c.parameters, result),
        __is_success: error ? 0 : 1,
        __reason: error ?? null,
        __usage: usageOutput(res.usage),
      },
      usage: res.usage,
      meta: { messages: redactParts(messages), mode, raw: res.text, toolCall: call ?? null },
    };
  },
});
