import { analyse } from "../analysis/index.js";
import { compactToWorkflow } from "../dsl/compact/to-ir.js";
import { workflowToCompact } from "../dsl/compact/from-ir.js";
import { variableSummary } from "../dsl/compact/summary.js";
import { runWorkflow } from "../engine/run.js";
import { formatDiagnostic } from "../ir/diagnostics.js";
import type { ChatMessage, ExecServices, LlmService, ModelRef, ToolCall, ToolSpec } from "../ir/services.js";
import type { AppMode, Workflow } from "../ir/workflow.js";
import { buildKnowledgeBase } from "./knowledge.js";

export type AgentEvent =
  | { type: "status"; message: string; iteration: number }
  | { type: "tool_execution"; tool: string; arguments: Record<string, unknown>; iteration: number }
  | { type: "tool_result"; tool: string; ok: boolean; result: unknown; iteration: number }
  | { type: "message"; text: string }
  | { type: "workflow"; workflow: Workflow }
  | { type: "error"; code: string; message: string };

export interface AgentOptions {
  llm: LlmService;
  model: ModelRef;
  /** Model names the workflow's LLM nodes may use (get_available_models). */
  models?: string[];
  workflow?: Workflow;
  mode?: AppMode;
  services?: Partial<ExecServices>;
  maxIterations?: number;
  onEvent?: (e: AgentEvent) => void;
  signal?: AbortSignal;
}

export interface AgentResult {
  workflow?: Workflow;
  /** The agent's final message to the user. */
  reply: string;
  iterations: number;
  updated: boolean;
}

const TOOLS: ToolSpec[] = [
  { name: "get_available_nodes", description: "List the node types with their params, outputs and ports.", parameters: { type: "object", properties: {} } },
  { name: "get_available_models", description: "List the model names LLM nodes may use.", parameters: { type: "object", properties: {} } },
  { name: "get_current_workflow", description: "The current workflow as compact JSON, with its variable summary.", parameters: { type: "object", properties: {} } },
  {
    name: "update_workflow",
    description: "Replace the workflow with a new compact JSON workflow ({nodes_info, edges}). It is validated; if it has errors it is rejected and the diagnostics are returned.",
    parameters: { type: "object", properties: { workflow: { type: "object", description: "compact workflow JSON" } }, required: ["workflow"] },
  },
  {
    name: "test_workflow",
    description: "Run the current workflow with the given inputs; returns status, outputs and a per-node trace summary.",
    parameters: { type: "object", properties: { inputs: { type: "object" } }, required: ["inputs"] },
  },
];

const SYSTEM = `You are Weft's workflow agent. You edit the user's workflow with tools: inspect nodes and the current workflow, then call update_workflow with the complete new workflow in compact JSON (ids "1","2",...; children of an iteration "<id>-1".."<id>-n"; references [variable, node_id]; text references {{#'node_id'.variable#}}; edges [source, port, target]). If update_workflow rejects it, fix the listed problems and call it again. Test with test_workflow when inputs are known. Finish with a short message to the user saying what changed.`;

/** Tool-calling loop (at most `maxIterations` model calls) that edits a workflow only through validated updates. */
export async function runAgent(userMessage: string, o: AgentOptions): Promise<AgentResult> {
  const emit = o.onEvent ?? (() => {});
  let workflow = o.workflow;
  let updated = false;
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    { role: "user", content: userMessage },
  ];
  const maxIterations = o.maxIterations ?? 10;

  const call = async (tc: ToolCall): Promise<{ ok: boolean; result: unknown }> => {
    switch (tc.name) {
      case "get_available_nodes":
        return { ok: true, result: buildKnowledgeBase().map((k) => ({ type: k.type, purpose: k.purpose, param: k.params, outputs: k.outputs, ports: k.ports })) };
      case "get_available_models":
        return { ok: true, result: o.models ?? [] };
      case "get_current_workflow":
        return { ok: true, result: workflow ? { workflow: workflowToCompact(workflow), summary: variableSummary(workflow) } : { workflow: null } };
      case "update_workflow": {
        const conv = compactToWorkflow(tc.arguments.workflow, { name: workflow?.name, mode: o.mode ?? workflow?.mode });
        const problems = conv.diagnostics.filter((d) => d.severity === "error");
        if (conv.workflow && problems.length === 0) problems.push(...analyse(conv.workflow).diagnostics.filter((d) => d.severity === "error"));
        if (!conv.workflow || problems.length) return { ok: false, result: { accepted: false, diagnostics: problems.map(formatDiagnostic) } };
        workflow = conv.workflow;
        updated = true;
        emit({ type: "workflow", workflow });
        return { ok: true, result: { accepted: true, nodes: workflow.nodes.length, edges: workflow.edges.length } };
      }
      case "test_workflow": {
        if (!workflow) return { ok: false, result: { error: "there is no workflow yet; call update_workflow first" } };
        const run = await runWorkflow(workflow, { inputs: (tc.arguments.inputs as Record<string, unknown>) ?? {}, services: o.services, signal: o.signal });
        return {
          ok: run.status !== "failed",
          result: {
            status: run.status,
            outputs: run.outputs,
            error: run.error,
            trace: run.trace.map((t) => ({ node: t.nodeId, type: t.nodeType, status: t.status, error: t.error?.message })),
          },
        };
      }
      default:
        return { ok: false, result: { error: `unknown tool ${tc.name}` } };
    }
  };

  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    emit({ type: "status", message: iteration === 1 ? "thinking" : "continuing", iteration });
    let resp;
    try {
      resp = await o.llm.chat({ model: o.model, messages, tools: TOOLS, signal: o.signal });
    } catch (e) {
      const err = e as { code?: string; message?: string };
      emit({ type: "error", code: err.code ?? "agent.llm_error", message: err.message ?? String(e) });
      return { workflow, reply: "", iterations: iteration, updated };
    }
    if (resp.toolCalls.length === 0) {
      emit({ type: "message", text: resp.text });
      return { workflow, reply: resp.text, iterations: iteration, updated };
    }
    messages.push({ role: "assistant", content: resp.text, toolCalls: resp.toolCalls });
    for (const tc of resp.toolCalls) {
      emit({ type: "tool_execution", tool: tc.name, arguments: tc.arguments, iteration });
      const { ok, result } = await call(tc);
      emit({ type: "tool_result", tool: tc.name, ok, result, iteration });
      messages.push({ role: "tool", toolCallId: tc.id, content: JSON.stringify(result) });
    }
  }
  emit({ type: "error", code: "agent.max_iterations", message: `the agent stopped after ${maxIterations} iterations without a final message` });
  return { workflow, reply: "", iterations: maxIterations, updated };
}
