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
import { NOTHING_CHANGED, notApplied, proposedOutcome, rejectedOutcome } from "./outcome.js";
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
class TurnDraft {
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

function outcomeOf(turn: TurnDraft, proposal: Proposal | undefined): TurnOutcome {
  if (proposal && !proposal.diff.empty) return proposedOutcome(proposal);
  const last = turn.rejections.at(-1);
  if (last) return rejectedOutcome(last);
  return { kind: "unchanged", summary: NOTHING_CHANGED };
}

type ToolAnswer = { ok: boolean; result: unknown; accepted?: Workflow };

/** The node types as `get_available_nodes` lists them. */
function availableNodes(): ToolAnswer {
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
}

/** `test_workflow`: a run of the draft, its trace cut down to what the model needs to fix a failure. */
async function testRun(draft: Workflow, inputs: unknown, o: AgentOptions): Promise<ToolAnswer> {
  const run = await runWorkflow(draft, {
    inputs: (inputs as Record<string, unknown>) ?? {},
    services: o.services,
    signal: o.signal,
  });
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

/** One run of the tool-calling loop: the turn's draft, the conversation with the model, and its events. */
class AgentRun {
  readonly turn: TurnDraft;
  readonly messages: ChatMessage[];
  readonly emit: (e: AgentEvent) => void;
  private revisions = 0;

  constructor(
    userMessage: string,
    private readonly o: AgentOptions,
  ) {
    this.emit = o.onEvent ?? (() => {});
    this.turn = new TurnDraft(o.workflow, o.mode ?? o.workflow?.mode ?? "workflow");
    this.messages = [{ role: "system", content: SYSTEM }, ...(o.history ?? []), { role: "user", content: userMessage }];
  }

  /** One model call and the tools it asks for; the result when the model is done (or failed). */
  async step(iteration: number): Promise<AgentResult | undefined> {
    this.emit({ type: "status", message: iteration === 1 ? "thinking" : "continuing", iteration });
    let resp: Awaited<ReturnType<LlmService["chat"]>>;
    try {
      resp = await this.o.llm.chat({
        model: this.o.model,
        messages: this.messages,
        tools: TOOLS,
        signal: this.o.signal,
      });
    } catch (e) {
      const err = e as { code?: string; message?: string };
      this.emit({ type: "error", code: err.code ?? "agent.llm_error", message: err.message ?? String(e) });
      return this.finish("", iteration);
    }
    if (resp.toolCalls.length === 0) return this.answered(resp.text, iteration);
    this.messages.push({ role: "assistant", content: resp.text, toolCalls: resp.toolCalls });
    for (const tc of resp.toolCalls) {
      this.emit({ type: "tool_execution", tool: tc.name, arguments: tc.arguments, iteration });
      const { ok, result } = await this.call(tc);
      this.emit({ type: "tool_result", tool: tc.name, ok, result, iteration });
      this.messages.push({ role: "tool", toolCallId: tc.id, content: JSON.stringify(result) });
    }
    return undefined;
  }

  /** A final message: the turn ends, unless the change fails the app's tests and goes back for a revision. */
  private async answered(text: string, iteration: number): Promise<AgentResult | undefined> {
    const feedback = await this.testFeedback();
    if (feedback !== undefined) {
      this.messages.push({ role: "assistant", content: text }, { role: "user", content: feedback });
      return undefined;
    }
    this.emit({ type: "message", text });
    return this.finish(text, iteration);
  }

  private async call(tc: ToolCall): Promise<ToolAnswer> {
    const { turn, o } = this;
    switch (tc.name) {
      case "get_available_nodes":
        return availableNodes();
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
        return this.accepted(turn.propose(tc.arguments.workflow, o.compact));
      case "edit_workflow": {
        const ops = applyOps(turn.view.projection.compact, tc.arguments.edits);
        return ops.compact ? this.accepted(turn.propose(ops.compact, o.compact)) : turn.rejectOps(ops.diagnostics);
      }
      case "test_workflow":
        return testRun(turn.draft, tc.arguments.inputs, o);
      default:
        return { ok: false, result: { error: `unknown tool ${tc.name}` } };
    }
  }

  /** An accepted update is shown to the user as the turn's draft so far. */
  private accepted(r: ToolAnswer): ToolAnswer {
    if (r.accepted) {
      const diff = diffWorkflows(this.o.workflow, r.accepted);
      this.emit({ type: "draft", workflow: r.accepted, diff, summary: summarizeDiff(diff) });
    }
    return r;
  }

  /** Feedback when the turn's change fails the app's tests and a revision is left; undefined to finish. */
  private async testFeedback(): Promise<string | undefined> {
    const { o, turn } = this;
    const max = o.maxRevisions ?? 2;
    if (!o.check || turn.draft === turn.initial || this.revisions >= max) return undefined;
    const r = await o.check(turn.draft);
    if (r.ok) return undefined;
    this.revisions++;
    this.emit({
      type: "status",
      message: `tests fail on the change; revising (${this.revisions}/${max})`,
      iteration: this.revisions,
    });
    return `The app's tests were run on your change before the user sees it, and they fail: ${r.feedback}\nRevise the change (edit_workflow or update_workflow) so these cases pass again, then finish with a short message; if the failure is what the user asked for, finish and say so.`;
  }

  finish(reply: string, iterations: number): AgentResult {
    const { turn, o } = this;
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
      revisions: this.revisions,
    };
  }
}

/** Tool-calling loop (at most `maxIterations` model calls) that builds a proposal only through checked updates. */
export async function runAgent(userMessage: string, o: AgentOptions): Promise<AgentResult> {
  const run = new AgentRun(userMessage, o);
  const maxIterations = o.maxIterations ?? 10;
  for (let iteration = 1; iteration <= maxIterations; iteration++) {
    const result = await run.step(iteration);
    if (result) return result;
  }
  run.emit({
    type: "error",
    code: "agent.max_iterations",
    message: `the agent stopped after ${maxIterations} iterations without a final message`,
  });
  return run.finish("", maxIterations);
}
