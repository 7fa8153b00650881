import { analyse } from "../analysis/index.js";
import { variableSummary } from "../dsl/compact/summary.js";
import { runWorkflow } from "../engine/run.js";
import type { Diagnostic } from "../ir/diagnostics.js";
import { diffWorkflows, summarizeDiff, type WorkflowDiff } from "../ir/diff.js";
import type { ChatMessage, ExecServices, LlmService, ModelRef, ToolCall, ToolSpec } from "../ir/services.js";
import { type AppMode, type Workflow, WorkflowSchema } from "../ir/workflow.js";
import { nodeCatalogue } from "../nodes/index.js";
import type { TurnOutcome } from "../store/apps.js";
import { applyOps, EDIT_OPS_HELP } from "./edit/ops.js";
import { type EditView, type ReadOptions, readEdit, viewOf } from "./edit/read.js";
import { formatForModel } from "./generate.js";
import { buildKnowledgeBase } from "./knowledge.js";
import { NOTHING_CHANGED, notApplied, rejectedOutcome } from "./outcome.js";
import { EDIT_RULES } from "./prompts.js";
import { makeProposal, newErrors, type Proposal } from "./proposal.js";

export type AgentEvent =
  | { type: "status"; message: string; iteration: number }
  | { type: "tool_execution"; tool: string; arguments: Record<string, unknown>; iteration: number }
  | { type: "tool_result"; tool: string; ok: boolean; result: unknown; iteration: number }
  | { type: "message"; text: string }
  /** An update the checks accepted into this turn's draft; nothing is applied until the user says so. */
  | { type: "draft"; workflow: Workflow; diff: WorkflowDiff; summary: string }
  | { type: "error"; code: string; message: string };

export interface AgentOptions {
  llm: LlmService;
  model: ModelRef;
  /** Model names the workflow's LLM nodes may use (get_available_models). */
  models?: string[];
  /** The workflow to edit (none: the agent builds one). */
  workflow?: Workflow;
  mode?: AppMode;
  /** Earlier turns of the conversation, with what each one really did. */
  history?: ChatMessage[];
  /** Models for nodes the agent adds (the configured model). */
  compact?: ReadOptions;
  services?: Partial<ExecServices>;
  maxIterations?: number;
  onEvent?: (e: AgentEvent) => void;
  signal?: AbortSignal;
  /**
   * Tests the turn's change when the agent is done (the app's test cases, src/apptests/proof.ts): a failing
   * result goes back to the agent as feedback, at most `maxRevisions` times (default 2), before it is proposed.
   */
  check?: (workflow: Workflow) => Promise<{ ok: boolean; feedback: string }>;
  maxRevisions?: number;
}

export interface AgentResult {
  /** The turn's draft: the proposed workflow (the input workflow when nothing was accepted). */
  workflow?: Workflow;
  /** The agent's final message to the user. */
  reply: string;
  iterations: number;
  /** The draft differs from the input workflow. */
  updated: boolean;
  /** The change against the input workflow, when there is one. */
  proposal?: Proposal;
  /** Diagnostics of each update the checks rejected. */
  rejections: Diagnostic[][];
  outcome: TurnOutcome;
  /** The reply claims or implies a change that was not made. */
  notApplied: boolean;
  /** Times failing tests sent the agent back to revise its change. */
  revisions: number;
}

const TOOLS: ToolSpec[] = [
  {
    name: "get_available_nodes",
    description: "List the node types with their params, outputs and ports.",
    parameters: { type: "object", properties: {} },
  },
  {
    name: "get_available_models",
    description: "List the model names LLM nodes may use.",
    parameters: { type: "object", properties: {} },
  },
  {
    name: "get_current_workflow",
    description: "The current workflow as compact JSON (with this turn's accepted changes), with its variable summary.",
    parameters: { type: "object", properties: {} },
  },
  {
    name: "update_workflow",
    description:
      "Propose the complete workflow as compact JSON ({nodes_info, edges}), written against get_current_workflow: nodes you keep keep their ids. It is checked; with errors it is rejected and the diagnostics are returned (nothing changes).",
    parameters: {
      type: "object",
      properties: { workflow: { type: "object", description: "compact workflow JSON" } },
      required: ["workflow"],
    },
  },
  {
    name: "edit_workflow",
    description: `Propose small edits of the current compact workflow, checked like update_workflow. ${EDIT_OPS_HELP}`,
    parameters: {
      type: "object",
      properties: { edits: { type: "array", items: { type: "object" } } },
      required: ["edits"],
    },
  },
  {
    name: "test_workflow",
    description:
      "Run the current workflow (with this turn's accepted changes) on the given inputs; returns status, outputs and a per-node trace summary.",
    parameters: { type: "object", properties: { inputs: { type: "object" } }, required: ["inputs"] },
  },
];

const SYSTEM = `You are Weft's workflow agent. You edit the user's workflow with tools: inspect nodes and the current workflow, then propose the change with edit_workflow (small edits) or update_workflow (the complete workflow) in compact JSON (top-level ids "1","2",...; children of an iteration "<id>-1".."<id>-n"; references [variable, node_id]; text references {{#'node_id'.variable#}}; edges [source, port, target]). If a proposal is rejected, fix the listed problems and propose again: a rejected proposal changes nothing. Test with test_workflow when inputs are known. The user reviews your change before it is applied. Finish with a short message to the user saying what you changed; never say a change was made when it was rejected.
${EDIT_RULES}`;

const errorsOf = (ds: Diagnostic[]) => ds.filter((d) => d.severity === "error");

/** The state of one turn: the workflow it started from and the draft its accepted updates built. */
class Turn {
  readonly initial: Workflow;
  draft: Workflow;
  view: EditView;
  private draftDiagnostics: Diagnostic[];
  readonly rejections: Diagnostic[][] = [];

  constructor(
    readonly base: Workflow | undefined,
    mode: AppMode,
  ) {
    this.initial = base ?? WorkflowSchema.parse({ name: "generated", mode, nodes: [], edges: [] });
    this.draft = this.initial;
    this.view = viewOf(this.draft);
    this.draftDiagnostics = analyse(this.draft, nodeCatalogue).diagnostics;
  }

  /** Check an answer against what the model was shown; accepted, it becomes the draft. */
  propose(answer: unknown, opts: ReadOptions | undefined): { ok: boolean; result: unknown; accepted?: Workflow } {
    const reading = readEdit(this.view, answer, opts);
    const problems = errorsOf(reading.diagnostics);
    const analysed =
      reading.workflow && problems.length === 0 ? analyse(reading.workflow, nodeCatalogue).diagnostics : [];
    problems.push(...newErrors(this.draftDiagnostics, analysed));
    const toCompact = new Map([...reading.ids].map(([cid, ir]) => [ir, cid]));
    if (!reading.workflow || problems.length) {
      this.rejections.push(problems);
      return {
        ok: false,
        result: {
          accepted: false,
          note: NOTHING_CHANGED,
          diagnostics: problems.map((d) => formatForModel(d, toCompact)),
        },
      };
    }
    const previous = this.draft;
    this.draft = reading.workflow;
    this.draftDiagnostics = analysed;
    // The next view keeps the ids the model used, so its picture of the workflow stays right.
    this.view = viewOf(this.draft, new Map([...reading.ids].map(([cid, ir]) => [ir, cid])));
    return {
      ok: true,
      result: {
        accepted: true,
        changes: summarizeDiff(diffWorkflows(previous, this.draft)),
        note: "the user reviews the change before it is applied",
      },
      accepted: this.draft,
    };
  }

  rejectOps(diagnostics: Diagnostic[]): { ok: boolean; result: unknown } {
    this.rejections.push(diagnostics);
    return {
      ok: false,
      result: {
        accepted: false,
        note: NOTHING_CHANGED,
        diagnostics: diagnostics.map((d) => formatForModel(d, new Map())),
      },
    };
  }
}

function outcomeOf(turn: Turn, proposal: Proposal | undefined): TurnOutcome {
  if (proposal && !proposal.diff.empty) {
    const errors = proposal.diagnostics.filter((d) => d.severity === "error").length;
    return { kind: "proposed", summary: proposal.summary, errors, warnings: proposal.diagnostics.length - errors };
  }
  const last = turn.rejections.at(-1);
  if (last) return rejectedOutcome(last);
  return { kind: "unchanged", summary: NOTHING_CHANGED };
}

/** Tool-calling loop (at most `maxIterations` model calls) that builds a proposal only through checked updates. */
export async function runAgent(userMessage: string, o: AgentOptions): Promise<AgentResult> {
  const emit = o.onEvent ?? (() => {});
  const turn = new Turn(o.workflow, o.mode ?? o.workflow?.mode ?? "workflow");
  const messages: ChatMessage[] = [
    { role: "system", content: SYSTEM },
    ...(o.history ?? []),
    { role: "user", content: userMessage },
  ];
  const maxIterations = o.maxIterations ?? 10;
  const accepted = (r: { ok: boolean; result: unknown; accepted?: Workflow }) => {
    if (r.accepted) {
      const diff = diffWorkflows(o.workflow, r.accepted);
      emit({ type: "draft", workflow: r.accepted, diff, summary: summarizeDiff(diff) });
    }
    return r;
  };

  const call = async (tc: ToolCall): Promise<{ ok: boolean; result: unknown }> => {
    switch (tc.name) {
      case "get_available_nodes":
        return {
          ok: true,
          result: buildKnowledgeBase().map((k) => ({
            type: k.type,
            purpose: k.purpose,
            param: k.params,
            outputs: k.outputs,
            ports: k.ports,
          })),
        };
      case "get_available_models":
        return { ok: true, result: o.models ?? [] };
      case "get_current_workflow": {
        const p = turn.view.projection;
        return {
          ok: true,
          result: { workflow: p.compact, summary: variableSummary(turn.draft, (id) => p.toCompact.get(id) ?? id) },
        };
      }
      case "update_workflow":
        return accepted(turn.propose(tc.arguments.workflow, o.compact));
      case "edit_workflow": {
        const ops = applyOps(turn.view.projection.compact, tc.arguments.edits);
        return ops.compact ? accepted(turn.propose(ops.compact, o.compact)) : turn.rejectOps(ops.diagnostics);
      }
      case "test_workflow": {
        const run = await runWorkflow(turn.draft, {
          inputs: (tc.arguments.inputs as Record<string, unknown>) ?? {},
          services: o.services,
          signal: o.signal,
        });
        return {
          ok: run.status !== "failed",
          result: {
            status: run.status,
            outputs: run.outputs,
            error: run.error,
            trace: run.trace.map((t) => ({
              node: t.nodeId,
              type: t.nodeType,
              status: t.status,
              error: t.error?.message,
            })),
          },
        };
      }
      default:
        return { ok: false, result: { error: `unknown tool ${tc.name}` } };
    }
  };

  const finish = (reply: string, iterations: number): AgentResult => {
    const proposal = turn.draft !== turn.initial ? makeProposal(o.workflow, turn.draft) : undefined;
    const outcome = outcomeOf(turn, proposal);
    const updated = outcome.kind === "proposed";
    return {
      workflow: updated ? turn.draft : o.workflow,
      reply,
      iterations,
      updated,
      ...(updated ? { proposal } : {}),
      rejections: turn.rejections,
      outcome,
      notApplied: notApplied(outcome, reply),
      revisions,
    };
  };

  let revisions = 0;
  /** Feedback when the turn's change fails the app's tests and a revision is left; undefined to finish. */
  const testFeedback = async (): Promise<string | undefined> => {
    if (!o.check || turn.draft === turn.initial || revisions >= (o.maxRevisions ?? 2)) return undefined;
    const r = await o.check(turn.draft);
    if (r.ok) return undefined;
    revisions++;
    emit({
      type: "status",
      message: `tests fail on the change; revising (${revisions}/${o.maxRevisions ?? 2})`,
      iteration: revisions,
    });
    return `The app's tests were run on your change before the user sees it, and they fail: ${r.feedback}\nRevise the change (edit_workflow or update_workflow) so these cases pass again, then finish with a short message; if the failure is what the user asked for, finish and say so.`;
  };

  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    emit({ type: "status", message: iteration === 1 ? "thinking" : "continuing", iteration });
    let resp: Awaited<ReturnType<LlmService["chat"]>>;
    try {
      resp = await o.llm.chat({ model: o.model, messages, tools: TOOLS, signal: o.signal });
    } catch (e) {
      const err = e as { code?: string; message?: string };
      emit({ type: "error", code: err.code ?? "agent.llm_error", message: err.message ?? String(e) });
      return finish("", iteration);
    }
    if (resp.toolCalls.length === 0) {
      const feedback = await testFeedback();
      if (feedback !== undefined) {
        messages.push({ role: "assistant", content: resp.text }, { role: "user", content: feedback });
        continue;
      }
      emit({ type: "message", text: resp.text });
      return finish(resp.text, iteration);
    }
    messages.push({ role: "assistant", content: resp.text, toolCalls: resp.toolCalls });
    for (const tc of resp.toolCalls) {
      emit({ type: "tool_execution", tool: tc.name, arguments: tc.arguments, iteration });
      const { ok, result } = await call(tc);
      emit({ type: "tool_result", tool: tc.name, ok, result, iteration });
      messages.push({ role: "tool", toolCallId: tc.id, content: JSON.stringify(result) });
    }
  }
  emit({
    type: "error",
    code: "agent.max_iterations",
    message: `the agent stopped after ${maxIterations} iterations without a final message`,
  });
  return finish("", maxIterations);
}
