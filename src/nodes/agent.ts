import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { NodeExecutionError, NotConfiguredError } from "../ir/errors.js";
import type { ExecContext, InputRef, TextField } from "../ir/registry.js";
import type { ChatMessage, FileValue, ModelRef, ToolCall, ToolSpec, Usage } from "../ir/services.js";
import { normaliseType } from "../ir/types.js";
import type { OutputDecl } from "../ir/workflow.js";
import { commonFields, defineNode, SOURCE, templateInputs } from "./common.js";
import { makeDiagnostic, nodeLabel } from "./diagnostics.js";
import {
  addUsage,
  callModel,
  contextText,
  gateFeedback,
  historyText,
  MemorySchema,
  parseJsonObject,
  readHistory,
  requireLlm,
  usageOutput,
  ZERO_USAGE,
} from "./model-call.js";

const AgentParam = z
  .object({
    type: z.string().default("constant"),
    value: z.unknown().optional(),
  })
  .loose();
type AgentParam = z.infer<typeof AgentParam>;

const AgentConfig = z
  .object({
    ...commonFields,
    agent_strategy_provider_name: z.string().default(""),
    agent_strategy_name: z.string().default(""),
    agent_strategy_label: z.string().nullish(),
    plugin_unique_identifier: z.string().nullish(),
    agent_parameters: z.record(z.string(), AgentParam).default({}),
    output_schema: z.record(z.string(), z.unknown()).nullish(),
    memory: MemorySchema.nullish(),
    tool_node_version: z.string().nullish(),
  })
  .loose();
export type AgentConfig = z.infer<typeof AgentConfig>;

export const DEFAULT_MAX_ITERATIONS = 5;
const MAX_ITERATIONS_CAP = 50;

function isSelector(v: unknown): v is string[] {
  return Array.isArray(v) && v.length > 0 && v.every((x) => typeof x === "string" || typeof x === "number");
}

function agentTexts(c: AgentConfig): TextField[] {
  const out: TextField[] = [];
  for (const [name, p] of Object.entries(c.agent_parameters)) {
    if (p.type === "variable") continue;
    if (typeof p.value === "string" && p.value.length > 0)
      out.push({ field: `agent_parameters.${name}.value`, text: p.value, kind: "dify" });
  }
  return out;
}

function agentInputs(c: AgentConfig): InputRef[] {
  const out: InputRef[] = [];
  for (const [name, p] of Object.entries(c.agent_parameters)) {
    const field = `agent_parameters.${name}.value`;
    if (p.type === "variable") {
      if (isSelector(p.value)) out.push({ selector: p.value.map(String), field });
    } else if (typeof p.value === "string") {
      out.push(...templateInputs(p.value, field));
    } else if (p.value !== undefined && p.value !== null) {
      // Dify renders non-string constants as JSON text, so references inside them count too.
      out.push(...templateInputs(JSON.stringify(p.value), field));
    }
  }
  return out;
}

function agentOutputs(c: AgentConfig): OutputDecl[] {
  const out: OutputDecl[] = [
    { name: "text", type: "string" },
    { name: "files", type: "array[file]" },
    { name: "json", type: "array[object]" },
    { name: "usage", type: "object" },
  ];
  const props = (c.output_schema as { properties?: Record<string, { type?: unknown }> } | null | undefined)?.properties;
  for (const [name, s] of Object.entries(props ?? {})) {
    if (out.some((o) => o.name === name)) continue;
    const t = s?.type === "array" ? "array[any]" : s?.type === "integer" ? "number" : normaliseType(s?.type);
    out.push({ name, type: t });
  }
  return out;
}

/** A parameter's value at run time: selectors read, templates rendered (JSON values through their text). */
function resolveParam(ctx: ExecContext<AgentConfig>, p: AgentParam): unknown {
  if (p.type === "variable") {
    if (!isSelector(p.value)) return undefined;
    const r = ctx.read(p.value.map(String));
    return r.found ? r.value : undefined;
  }
  if (typeof p.value === "string") return ctx.render(p.value);
  if (p.value === undefined || p.value === null) return p.value;
  const text = ctx.render(JSON.stringify(p.value));
  try {
    return JSON.parse(text);
  } catch {
    return p.value;
  }
}

interface ToolEntry {
  enabled?: boolean;
  provider_name?: string;
  type?: string;
  tool_name?: string;
  tool_label?: string;
  tool_description?: string;
  extra?: { description?: string };
  parameters?: Record<string, { auto?: number; value?: unknown } | null>;
  settings?: Record<string, { value?: unknown } | null>;
  schemas?: Array<{
    name?: string;
    type?: string;
    form?: string;
    required?: boolean;
    llm_description?: string;
    options?: Array<{ value?: unknown }>;
  }>;
}

interface BoundTool {
  spec: ToolSpec;
  providerId: string;
  providerType?: string;
  toolName: string;
  fixed: Record<string, unknown>;
  configurations: Record<string, unknown>;
}

function unwrap(v: unknown): unknown {
  // Tool settings and fixed parameters are `{type, value}` in new files and bare values in old ones.
  if (v && typeof v === "object" && !Array.isArray(v) && "value" in (v as object) && "type" in (v as object)) {
    return (v as { value: unknown }).value;
  }
  return v;
}

function jsonType(t: string | undefined): string {
  switch (t) {
    case "number":
      return "number";
    case "boolean":
      return "boolean";
    case "array":
      return "array";
    case "object":
      return "object";
    default:
      return "string";
  }
}

function safeName(name: string, taken: Set<string>): string {
  let base = name.replace(/[^a-zA-Z0-9_-]/g, "_").slice(0, 60) || "tool";
  let n = 2;
  while (taken.has(base)) base = `${base.slice(0, 56)}_${n++}`;
  taken.add(base);
  return base;
}

function renderDeep(ctx: ExecContext<AgentConfig>, v: unknown): unknown {
  if (typeof v === "string") return ctx.render(v);
  if (Array.isArray(v)) return v.map((x) => renderDeep(ctx, x));
  return v;
}

/** Tools the node names (with their schemas as Dify stores them), else every tool the service lists. */
async function bindTools(ctx: ExecContext<AgentConfig>, toolsParam: unknown): Promise<BoundTool[]> {
  const taken = new Set<string>();
  const entries = (Array.isArray(toolsParam) ? (toolsParam as ToolEntry[]) : []).filter(
    (t) => t && t.enabled !== false && t.tool_name,
  );
  const listed = (await ctx.services.tools?.list?.()) ?? [];
  const bound: BoundTool[] = [];
  for (const e of entries) {
    const toolName = e.tool_name as string;
    const known = listed.find((s) => s.name === toolName);
    const fixed: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e.parameters ?? {})) {
      if (v && v.auto === 0 && v.value !== undefined && v.value !== null) fixed[k] = renderDeep(ctx, unwrap(v.value));
    }
    const configurations: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(e.settings ?? {})) {
      if (v && v.value !== undefined) configurations[k] = renderDeep(ctx, unwrap(v.value));
    }
    let parameters: Record<string, unknown>;
    const llmSchemas = (e.schemas ?? []).filter((s) => s.name && (s.form ?? "llm") === "llm" && !(s.name in fixed));
    if (llmSchemas.length > 0 || !known) {
      parameters = {
        type: "object",
        properties: Object.fromEntries(
          llmSchemas.map((s) => {
            const prop: Record<string, unknown> = { type: jsonType(s.type), description: s.llm_description ?? "" };
            if (s.type === "select" && s.options?.length) prop.enum = s.options.map((o) => String(o.value));
            return [s.name as string, prop];
          }),
        ),
        required: llmSchemas.filter((s) => s.required).map((s) => s.name as string),
      };
    } else parameters = known.parameters;
    bound.push({
      spec: {
        name: safeName(toolName, taken),
        description: e.tool_description || e.extra?.description || known?.description || e.tool_label || toolName,
        parameters,
      },
      providerId: e.provider_name ?? "",
      providerType: e.type,
      toolName,
      fixed,
      configurations,
    });
  }
  if (entries.length === 0) {
    for (const s of listed) {
      bound.push({
        spec: { ...s, name: safeName(s.name, taken) },
        providerId: "",
        toolName: s.name,
        fixed: {},
        configurations: {},
      });
    }
  }
  return bound;
}

function modelOf(v: unknown): ModelRef | undefined {
  if (!v || typeof v !== "object") return undefined;
  const m = v as Record<string, unknown>;
  const name = typeof m.model === "string" ? m.model : typeof m.name === "string" ? m.name : "";
  if (!name) return undefined;
  return {
    provider: typeof m.provider === "string" ? m.provider : "",
    name,
    mode: typeof m.mode === "string" ? m.mode : "chat",
    completion_params: (m.completion_params as Record<string, unknown>) ?? {},
  };
}

interface ToolOutcome {
  text: string;
  files: FileValue[];
  json: unknown[];
}

async function runTool(
  ctx: ExecContext<AgentConfig>,
  tool: BoundTool | undefined,
  call: ToolCall,
): Promise<ToolOutcome> {
  if (!tool) return { text: `error: there is no tool named "${call.name}"`, files: [], json: [] };
  const tools = ctx.services.tools;
  if (!tools)
    throw new NotConfiguredError(
      "tools.not_configured",
      `${nodeLabel(ctx.node)} uses tools, but no tool service is configured`,
      { nodeId: ctx.node.id },
    );
  try {
    const r = await tools.invoke({
      providerId: tool.providerId,
      providerType: tool.providerType,
      toolName: tool.toolName,
      parameters: { ...call.arguments, ...tool.fixed },
      configurations: tool.configurations,
      signal: ctx.signal,
    });
    const jsonText = r.json.length > 0 && !r.text ? JSON.stringify(r.json) : "";
    const fileText = r.files.length > 0 ? `\n(files: ${r.files.map((f) => f.filename).join(", ")})` : "";
    return { text: (r.text || jsonText || "(no output)") + fileText, files: r.files, json: r.json };
  } catch (err) {
    if (err instanceof NotConfiguredError) throw err;
    // A failing tool is an observation for the model, as in Dify's strategies, not a node failure.
    return { text: `error: ${(err as Error)?.message ?? String(err)}`, files: [], json: [] };
  }
}

const REACT_FORMAT = [
  "Answer the user's request. You can use the tools listed below.",
  "Work in steps. In each reply write either",
  "Thought: <your reasoning>",
  "Action:",
  "```json",
  '{"action": "<tool name>", "action_input": {<arguments>}}',
  "```",
  "and then stop and wait for the Observation, or, once you know the answer,",
  "Thought: <your reasoning>",
  "Final Answer: <the answer for the user>",
].join("\n");

function reactToolList(tools: BoundTool[]): string {
  return tools
    .map(
      (t) => `- ${t.spec.name}: ${t.spec.description}\n  arguments (JSON Schema): ${JSON.stringify(t.spec.parameters)}`,
    )
    .join("\n");
}

function parseReact(text: string): { final?: string; action?: { name: string; input: Record<string, unknown> } } {
  const fin = /Final Answer:\s*([\s\S]*)$/i.exec(text);
  const actIdx = text.search(/Action:/i);
  if (fin && (actIdx < 0 || (fin.index ?? 0) > actIdx)) return { final: (fin[1] ?? "").trim() };
  if (actIdx >= 0) {
    const obj = parseJsonObject(text.slice(actIdx));
    const name = obj?.action ?? obj?.name;
    if (typeof name === "string") {
      if (/^final answer$/i.test(name)) {
        const input = obj?.action_input;
        return { final: typeof input === "string" ? input : JSON.stringify(input ?? "") };
      }
      const input = obj?.action_input ?? obj?.arguments ?? {};
      const args =
        typeof input === "string" ? (parseJsonObject(input) ?? { input }) : (input as Record<string, unknown>);
      return { action: { name, input: args } };
    }
  }
  return { final: text.trim() };
}

export const agentNode = defineNode<AgentConfig>({
  type: "agent",
  label: "Agent",
  category: "llm",
  purpose:
    "Runs an agent strategy (function calling or ReAct): the model calls tools in a loop, up to a maximum number of iterations, then answers.",
  notes: [
    "agent_parameters hold the strategy inputs, each {type: constant|variable|mixed, value}: model, instruction, query, tools, maximum_iterations.",
    "Outputs text, files produced by tools, json results and usage.",
  ],
  configSchema: AgentConfig,
  example: {
    agent_strategy_provider_name: "langgenius/agent/agent",
    agent_strategy_name: "function_calling",
    agent_strategy_label: "FunctionCalling",
    agent_parameters: {
      model: {
        type: "constant",
        value: { provider: "openai", model: "gpt-4o-mini", mode: "chat", completion_params: {} },
      },
      instruction: { type: "constant", value: "You are a research assistant." },
      query: { type: "constant", value: "{{#sys.query#}}" },
      tools: { type: "constant", value: [] },
      maximum_iterations: { type: "constant", value: 5 },
    },
  },
  outputs: (c) => agentOutputs(c),
  inputs: (c) => agentInputs(c),
  ports: () => SOURCE,
  texts: (c) => agentTexts(c),
  rules(c, sctx) {
    const id = sctx.node.id;
    const out: Diagnostic[] = [];
    if (!c.agent_strategy_name)
      out.push(makeDiagnostic(id, "agent.no_strategy", "agent_strategy_name", "no agent strategy is chosen"));
    const m = c.agent_parameters.model;
    if (!m || (m.type !== "variable" && !modelOf(m.value))) {
      out.push(makeDiagnostic(id, "agent.no_model", "agent_parameters.model", "no model is chosen"));
    }
    const q = c.agent_parameters.query;
    if (!q || q.value === undefined || q.value === null || q.value === "") {
      out.push(makeDiagnostic(id, "agent.no_query", "agent_parameters.query", "the query is empty", "warning"));
    }
    const mi = c.agent_parameters.maximum_iterations?.value;
    if (mi !== undefined && mi !== null && !(Number(mi) >= 1)) {
      out.push(
        makeDiagnostic(
          id,
          "agent.max_iterations",
          "agent_parameters.maximum_iterations",
          "maximum_iterations must be at least 1",
        ),
      );
    }
    return out;
  },
  async execute(ctx) {
    const c = ctx.config;
    requireLlm(ctx);
    const params: Record<string, unknown> = {};
    for (const [k, p] of Object.entries(c.agent_parameters)) params[k] = resolveParam(ctx, p);
    const model = modelOf(params.model);
    if (!model) {
      throw new NodeExecutionError(
        "agent.no_model",
        `${nodeLabel(ctx.node)}: no model is set in agent_parameters.model`,
        ctx.node.id,
        {
          field: "agent_parameters.model",
        },
      );
    }
    const wantsTools =
      (Array.isArray(params.tools) && params.tools.some((t) => t && (t as ToolEntry).enabled !== false)) ||
      Object.keys(params).some((k) => k.startsWith("mcp_"));
    if (wantsTools && !ctx.services.tools) {
      throw new NotConfiguredError(
        "tools.not_configured",
        `${nodeLabel(ctx.node)} uses tools, but no tool service is configured`,
        {
          nodeId: ctx.node.id,
        },
      );
    }
    const tools = await bindTools(ctx, params.tools);
    const byName = new Map(tools.map((t) => [t.spec.name, t]));
    const maxRaw = Number(params.maximum_iterations);
    const maxIterations =
      Number.isFinite(maxRaw) && maxRaw >= 1
        ? Math.min(Math.floor(maxRaw), MAX_ITERATIONS_CAP)
        : DEFAULT_MAX_ITERATIONS;
    const react = /react/i.test(c.agent_strategy_name);

    const instruction = typeof params.instruction === "string" ? params.instruction : "";
    const query =
      params.query === undefined || params.query === null
        ? ""
        : typeof params.query === "string"
          ? params.query
          : JSON.stringify(params.query);
    const context = params.context !== undefined ? contextText(params.context) : "";
    let system = instruction;
    if (context) system += `${system ? "\n\n" : ""}Use this context:\n<context>\n${context}\n</context>`;
    if (react && tools.length > 0)
      system += `${system ? "\n\n" : ""}${REACT_FORMAT}\n\nTools:\n${reactToolList(tools)}`;
    const messages: ChatMessage[] = [];
    if (system) messages.push({ role: "system", content: system });
    if (c.memory) {
      const history = readHistory(ctx, c.memory);
      if (react) {
        if (history.length)
          messages.push({ role: "user", content: `Conversation so far:\n${historyText(history, c.memory)}` });
      } else for (const t of history) messages.push({ role: t.role, content: t.content });
    }
    if (query.trim() === "") {
      throw new NodeExecutionError("agent.no_query", `${nodeLabel(ctx.node)}: the query is empty`, ctx.node.id, {
        field: "agent_parameters.query",
      });
    }
    messages.push({ role: "user", content: query });
    const feedback = gateFeedback(ctx.feedback);
    if (feedback) messages.push({ role: "user", content: feedback });

    let usage: Usage = ZERO_USAGE;
    const files: FileValue[] = [];
    const json: unknown[] = [];
    const steps: Array<Record<string, unknown>> = [];
    let answer = "";
    let finished = false;
    const selector = [ctx.node.id, "text"];

    for (let round = 0; round < maxIterations && !finished; round++) {
      const last = round === maxIterations - 1;
      if (react) {
        const res = await callModel(ctx, { model, messages });
        usage = addUsage(usage, res.usage);
        const step =
          tools.length > 0 && !last ? parseReact(res.text) : { final: parseReact(res.text).final ?? res.text.trim() };
        if (step.final !== undefined || !step.action) {
          answer = step.final ?? res.text.trim();
          finished = true;
          break;
        }
        const call: ToolCall = { id: `react-${round}`, name: step.action.name, arguments: step.action.input };
        const outcome = await runTool(ctx, byName.get(call.name), call);
        files.push(...outcome.files);
        json.push(...outcome.json);
        steps.push({ round, tool: call.name, arguments: call.arguments, observation: outcome.text.slice(0, 2000) });
        messages.push({ role: "assistant", content: res.text });
        messages.push({ role: "user", content: `Observation: ${outcome.text}` });
        continue;
      }
      // Function calling: the last round offers no tools so the model has to answer.
      const offered = last ? undefined : tools.map((t) => t.spec);
      const res = await callModel(ctx, {
        model,
        messages,
        tools: offered && offered.length > 0 ? offered : undefined,
        onText: (delta) => {
          if (delta) ctx.emit({ type: "chunk", text: delta, selector });
        },
      });
      usage = addUsage(usage, res.usage);
      if (res.toolCalls.length === 0 || !offered) {
        answer += res.text;
        finished = true;
        break;
      }
      if (res.text) answer += res.text;
      messages.push({ role: "assistant", content: res.text, toolCalls: res.toolCalls });
      for (const call of res.toolCalls) {
        const outcome = await runTool(ctx, byName.get(call.name), call);
        files.push(...outcome.files);
        json.push(...outcome.json);
        steps.push({ round, tool: call.name, arguments: call.arguments, observation: outcome.text.slice(0, 2000) });
        messages.push({ role: "tool", toolCallId: call.id, content: outcome.text });
      }
    }
    if (react && answer) ctx.emit({ type: "chunk", text: answer, selector });
    return {
      outputs: {
        text: answer,
        files,
        json: json.length > 0 ? json : [{ data: [] }],
        usage: usageOutput(usage),
      },
      usage,
      meta: {
        strategy: react ? "react" : "function_calling",
        steps,
        maxIterations,
        tools: tools.map((t) => t.spec.name),
      },
    };
  },
});
