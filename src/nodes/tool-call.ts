/**
 * Tool-calling position (Weft extension, made by the miner): at run time the model picks one tool from
 * the tool service's catalogue (optionally restricted to `candidates`) given the upstream context,
 * writes its arguments by function calling, the arguments are validated against the tool's JSON
 * schema (with `max_repairs` chances to fix them), and the tool is invoked. The call (tool,
 * arguments, response) is recorded in the attempt's `meta.tool_call`, so it is in the trace.
 */
import { createRequire } from "node:module";
import type { Ajv, ErrorObject, ValidateFunction } from "ajv";
import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { NodeExecutionError, NotConfiguredError, WeftError } from "../ir/errors.js";
import type { ExecContext, InputRef } from "../ir/registry.js";
import type { ChatMessage, ToolCall, ToolSpec, Usage } from "../ir/services.js";
import {
  bindingInputs,
  commonFields,
  defineNode,
  ModelSchema,
  SOURCE,
  templateInputs,
  textField,
  VariableBinding,
} from "./common.js";
import { addUsage, callModel, contextText, parseJsonObject, ZERO_USAGE } from "./model-call.js";

const ToolCallConfig = z
  .object({
    ...commonFields,
    model: ModelSchema,
    /** The ToolService provider the tools belong to (SOP-Bench: `sopbench/<domain>`). */
    provider_id: z.string().default(""),
    /** Tool names this position may use; empty = every tool the service lists. */
    candidates: z.array(z.string().min(1)).default([]),
    /** Upstream values shown to the model, each under its variable name. */
    context: z.array(VariableBinding).default([]),
    /** Extra instruction (Dify template) for choosing the tool and writing its arguments. */
    instruction: z.string().default(""),
    max_repairs: z.number().int().min(0).max(3).default(1),
    /** `record`: a tool failure becomes the `error` output; `fail`: it fails the node. */
    on_tool_error: z.enum(["record", "fail"]).default("record"),
  })
  .loose();
export type ToolCallConfig = z.infer<typeof ToolCallConfig>;

// ajv loads with the first tool call, not with the node registry every command loads.
let ajvInstance: Ajv | undefined;
function ajv(): Ajv {
  if (!ajvInstance) {
    const { Ajv: AjvClass } = createRequire(import.meta.url)("ajv") as typeof import("ajv");
    ajvInstance = new AjvClass({ strict: false, allErrors: true });
  }
  return ajvInstance;
}
const validators = new Map<string, ValidateFunction>();

function validatorFor(spec: ToolSpec): ValidateFunction | undefined {
  const key = JSON.stringify(spec.parameters ?? {});
  let v = validators.get(key);
  if (!v) {
    try {
      v = ajv().compile(spec.parameters ?? {});
    } catch {
      // A schema ajv cannot compile is not enforced; the tool itself still validates.
      return undefined;
    }
    validators.set(key, v);
  }
  return v;
}

function ajvText(errors: ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((e) => `${e.instancePath || "(arguments)"} ${e.message ?? "is invalid"}`);
}

function label(ctx: ExecContext<ToolCallConfig>): string {
  return `tool-call node "${ctx.node.title || ctx.node.id}"`;
}

async function offeredTools(ctx: ExecContext<ToolCallConfig>): Promise<ToolSpec[]> {
  const tools = ctx.services.tools;
  if (!tools)
    throw new NotConfiguredError("tool.not_configured", `${label(ctx)}: no tool service is configured`, {
      nodeId: ctx.node.id,
    });
  const listed = (await tools.list?.()) ?? [];
  const cands = ctx.config.candidates;
  if (cands.length === 0) {
    if (listed.length === 0)
      throw new NotConfiguredError(
        "tool_call.no_tools",
        `${label(ctx)}: the tool service lists no tools and no candidates are configured`,
        {
          nodeId: ctx.node.id,
        },
      );
    return listed;
  }
  const byName = new Map(listed.map((s) => [s.name, s]));
  return cands.map((name) => {
    const s = byName.get(name);
    if (s) return s;
    // A service without a catalogue still gets called; the schema is then unknown.
    if (listed.length === 0) return { name, description: "", parameters: { type: "object" } };
    throw new NodeExecutionError(
      "tool_call.unknown_candidate",
      `${label(ctx)}: candidate tool "${name}" is not offered by the tool service`,
      ctx.node.id,
      {
        field: "candidates",
        tool: name,
      },
    );
  });
}

function contextBlock(ctx: ExecContext<ToolCallConfig>): string {
  const parts: string[] = [];
  for (const b of ctx.config.context) {
    const r = ctx.read(b.value_selector);
    const v = r.found ? r.value : null;
    const text = v !== null && typeof v === "object" && !Array.isArray(v) ? JSON.stringify(v) : contextText(v);
    parts.push(`## ${b.variable}\n${text || "(empty)"}`);
  }
  return parts.join("\n\n");
}

/** The first call in a reply: a native tool call, else a `{tool, arguments}` JSON object in the text. */
function firstCall(text: string, calls: ToolCall[]): { name: string; arguments: Record<string, unknown> } | undefined {
  const c = calls[0];
  if (c) return { name: c.name, arguments: c.arguments ?? {} };
  const o = parseJsonObject(text);
  const name = typeof o?.tool === "string" ? o.tool : typeof o?.name === "string" ? o.name : undefined;
  if (!name) return undefined;
  const args = o?.arguments;
  return {
    name,
    arguments: args && typeof args === "object" && !Array.isArray(args) ? (args as Record<string, unknown>) : {},
  };
}

const SYSTEM = [
  "You are one tool-calling step of a workflow.",
  "Call exactly one of the offered tools, with arguments that satisfy its parameter schema.",
  "Take argument values from the task and the context below; do not invent identifiers.",
].join(" ");

export const toolCallNode = defineNode<ToolCallConfig>({
  type: "tool-call",
  label: "Tool call",
  category: "tool",
  purpose:
    "Lets a model choose one tool (from `candidates`, or every available tool) and write its arguments from the context; the arguments are checked against the tool's schema, then the tool runs.",
  notes: [
    "context: [{variable, value_selector}] — the upstream values the model sees.",
    "Outputs: tool (string), arguments (object), result (string), json (array[object]), error (string, empty on success).",
    "The call is recorded in the trace (meta.tool_call) for tool-invocation metrics.",
  ],
  configSchema: ToolCallConfig,
  example: {
    model: { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: {} },
    candidates: ["search"],
    context: [{ variable: "plan", value_selector: ["plan", "text"] }],
    instruction: "Search for the entity the user asks about.",
  },
  outputs: () => [
    { name: "tool", type: "string" },
    { name: "arguments", type: "object" },
    { name: "result", type: "string" },
    { name: "json", type: "array[object]" },
    { name: "error", type: "string" },
  ],
  inputs: (c): InputRef[] => [...bindingInputs(c.context, "context"), ...templateInputs(c.instruction, "instruction")],
  ports: () => SOURCE,
  texts: (c) => textField("instruction", c.instruction),
  rules(c, sctx) {
    const out: Diagnostic[] = [];
    const seen = new Set<string>();
    for (const [i, name] of c.candidates.entries()) {
      if (seen.has(name))
        out.push({
          code: "tool_call.duplicate_candidate",
          severity: "warning",
          nodeId: sctx.node.id,
          field: `candidates[${i}]`,
          message: `candidate "${name}" is listed twice`,
        });
      seen.add(name);
    }
    if (!c.model.name)
      out.push({
        code: "llm.model_missing",
        severity: "warning",
        nodeId: sctx.node.id,
        field: "model.name",
        message: "no model is chosen",
      });
    return out;
  },
  async execute(ctx) {
    const c = ctx.config;
    const specs = await offeredTools(ctx);
    const byName = new Map(specs.map((s) => [s.name, s]));
    const instruction = c.instruction ? ctx.render(c.instruction) : "";
    const messages: ChatMessage[] = [
      { role: "system", content: instruction ? `${SYSTEM}\n\n${instruction}` : SYSTEM },
      { role: "user", content: contextBlock(ctx) || "(no context)" },
    ];
    const model = {
      provider: c.model.provider,
      name: c.model.name,
      mode: c.model.mode,
      completion_params: c.model.completion_params,
    };
    let usage: Usage = ZERO_USAGE;
    let chosen: { name: string; arguments: Record<string, unknown> } | undefined;
    let problems: string[] = [];
    for (let attempt = 0; attempt <= c.max_repairs; attempt++) {
      const res = await callModel(ctx, { model, messages, tools: specs });
      usage = addUsage(usage, res.usage);
      const call = firstCall(res.text, res.toolCalls);
      problems = [];
      if (!call) problems.push(`no tool was called; call one of: ${specs.map((s) => s.name).join(", ")}`);
      else if (!byName.has(call.name))
        problems.push(`"${call.name}" is not an offered tool; call one of: ${specs.map((s) => s.name).join(", ")}`);
      else {
        const v = validatorFor(byName.get(call.name)!);
        if (v && !v(call.arguments)) problems.push(...ajvText(v.errors));
      }
      if (problems.length === 0) {
        chosen = call;
        break;
      }
      messages.push({
        role: "assistant",
        content: call ? `Called ${call.name} with ${JSON.stringify(call.arguments)}` : res.text || "(no call)",
      });
      messages.push({
        role: "user",
        content: `That call is invalid:\n- ${problems.join("\n- ")}\nCall the tool again with corrected arguments.`,
      });
    }
    if (!chosen) {
      throw new NodeExecutionError(
        "tool_call.invalid_arguments",
        `${label(ctx)}: the model's tool call stayed invalid after ${c.max_repairs} repair(s): ${problems.join("; ")}`,
        ctx.node.id,
        {
          field: "arguments",
          problems,
        },
      );
    }
    const tools = ctx.services.tools!;
    let text = "";
    let json: unknown[] = [];
    let error = "";
    try {
      const r = await tools.invoke({
        providerId: c.provider_id,
        toolName: chosen.name,
        parameters: chosen.arguments,
        signal: ctx.signal,
      });
      text = r.text ?? "";
      json = Array.isArray(r.json) ? r.json : [];
    } catch (err) {
      if (c.on_tool_error === "fail" || err instanceof NotConfiguredError) {
        if (err instanceof WeftError && !(err instanceof NodeExecutionError))
          (err.details as Record<string, unknown>).nodeId = ctx.node.id;
        if (err instanceof NodeExecutionError || err instanceof NotConfiguredError) throw err;
        const code = err instanceof WeftError ? err.code : "tool.invoke_failed";
        throw new NodeExecutionError(
          code,
          `${label(ctx)}: ${chosen.name}: ${(err as Error)?.message ?? String(err)}`,
          ctx.node.id,
          { tool: chosen.name },
        );
      }
      error = `${err instanceof WeftError ? `${err.code}: ` : ""}${(err as Error)?.message ?? String(err)}`;
    }
    return {
      outputs: {
        tool: chosen.name,
        arguments: chosen.arguments,
        result: error ? `ERROR: ${error}` : text,
        json,
        error,
      },
      usage,
      meta: {
        tool_call: { tool: chosen.name, arguments: chosen.arguments, response: text, ...(error ? { error } : {}) },
      },
    };
  },
});
