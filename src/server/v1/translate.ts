import { createHash } from "node:crypto";
import type { PendingForm } from "../../ir/services.js";
import type { Workflow } from "../../ir/workflow.js";
import type { RunEvent } from "../../store/run-events.js";
import { filesIn } from "../file-signing.js";
import { formDisposition } from "./form-disposition.js";

/** A run event as the hub keeps it: stamped with the time it happened (ms). */
export type StampedEvent = RunEvent & { at?: number };

/** One Dify stream event: `event` names it; the rest is its payload as Dify sends it. */
export type DifyEvent = { event: string } & Record<string, unknown>;

/** What the translation needs to know about the run beyond its events. */
export interface StreamContext {
  runId: string;
  mode: "workflow" | "advanced-chat";
  /** Dify's published-workflow id; Weft's app id and version. */
  workflowId: string;
  workflow: Workflow;
  /** The run's inputs with the `sys.*` values, as workflow_started reports them. */
  inputs: Record<string, unknown>;
  user: string;
  /** When the run was created (ms). */
  createdAt: number;
  conversationId?: string;
  messageId?: string;
}

const sec = (ms: number) => Math.floor(ms / 1000);
const STOPPED = "run.cancelled";
const CONTAINERS = new Set(["iteration", "loop"]);
const BODY_STARTS: Record<string, "iteration" | "loop"> = { "iteration-start": "iteration", "loop-start": "loop" };

/** A stable uuid-shaped id for one node execution, so a replayed stream names executions as the live one did. */
function executionId(runId: string, segment: number, key: string, attempt: number): string {
  const h = createHash("sha256").update(`${runId}\u0000${segment}\u0000${key}\u0000${attempt}`).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`;
}

/** The innermost container of a frame key (`it[1]/lp[0]/x` → lp, round 0). */
function frameOf(key: string): { container: string; index: number } | undefined {
  const parts = key.split("/");
  const m = parts.length > 1 ? /^(.+)\[(\d+)\]$/.exec(parts[parts.length - 2]!) : null;
  return m ? { container: m[1]!, index: Number(m[2]) } : undefined;
}

interface Execution {
  id: string;
  index: number;
  startedAt: number;
  iterationId: string | null;
  loopId: string | null;
}

/**
 * Dify's stream from Weft's run events, one event at a time, in Dify's order and shapes (Dify's
 * WorkflowResponseConverter and generate-task pipelines): workflow_started, node_started/node_finished (not for
 * iteration and loop nodes, which get their own started, next and completed events; not for their start nodes, which mark
 * iteration_next/loop_next), node_retry, text_chunk or, in chat apps, message, human_input_required then
 * workflow_paused, human_input_form_filled/human_input_form_timeout after a resume, message_end, workflow_finished,
 * error. Deterministic: the same events always give the same stream, so a replay can skip what a client saw.
 */
export class DifyTranslator {
  private segment = 0;
  private nodeIndex = 0;
  private steps = 0;
  private tokens = 0;
  private promptTokens = 0;
  private completionTokens = 0;
  private exceptions = 0;
  private readonly executions = new Map<string, Execution>();
  private readonly forms = new Map<string, PendingForm>();
  /** Human-input nodes that paused: their node_finished after a resume carries the answer. */
  private readonly waiting = new Set<string>();
  /** Chat: the reply sent so far, and how much of it a resumed segment has re-streamed. */
  private sent = "";
  private replayed = 0;
  private readonly endTexts: Set<string>;
  private readonly nodes: Map<string, { type: string; title: string }>;

  constructor(private readonly ctx: StreamContext) {
    this.nodes = new Map(ctx.workflow.nodes.map((n) => [n.id, { type: n.type, title: n.title }]));
    // Workflow apps stream the text that End nodes output (Dify's response coordinator), not every LLM's.
    this.endTexts = new Set(
      ctx.workflow.nodes
        .filter((n) => n.type === "end" && !n.parentId)
        .flatMap((n) =>
          ((n.config.outputs as Array<{ value_selector?: unknown[] }>) ?? []).map((o) =>
            (o.value_selector ?? []).join("."),
          ),
        ),
    );
  }

  /** The Dify events one run event becomes (often none). */
  next(ev: StampedEvent): DifyEvent[] {
    const at = ev.at ?? this.ctx.createdAt;
    switch (ev.type) {
      case "run_started":
        this.segment++;
        this.replayed = 0;
        return ev.resumed ? [] : [this.workflowStarted()];
      case "node_started":
        return this.nodeStarted(ev, at);
      case "node_finished":
        return this.nodeFinished(ev, at);
      case "node_retry":
        return this.nodeRetry(ev, at);
      case "node_paused":
        this.forms.set(ev.key, ev.form);
        this.waiting.add(ev.key);
        return [this.humanInputRequired(ev.form, ev.nodeId)];
      case "text_chunk":
        return this.text(ev, at);
      case "run_finished":
        return this.runFinished(ev, at);
      default:
        return [];
    }
  }

  private base(): Record<string, unknown> {
    const chat =
      this.ctx.mode === "advanced-chat"
        ? {
            conversation_id: this.ctx.conversationId,
            message_id: this.ctx.messageId,
            created_at: sec(this.ctx.createdAt),
          }
        : {};
    return { task_id: this.ctx.runId, workflow_run_id: this.ctx.runId, ...chat };
  }

  private emit(event: string, data: Record<string, unknown>): DifyEvent {
    return { event, ...this.base(), data };
  }

  private workflowStarted(): DifyEvent {
    return this.emit("workflow_started", {
      id: this.ctx.runId,
      workflow_id: this.ctx.workflowId,
      inputs: this.ctx.inputs,
      created_at: sec(this.ctx.createdAt),
      reason: "initial",
    });
  }

  private execution(key: string): Execution | undefined {
    return this.executions.get(key);
  }

  private nodeStarted(ev: Extract<RunEvent, { type: "node_started" }>, at: number): DifyEvent[] {
    const frame = frameOf(ev.key);
    const bodyOf = BODY_STARTS[ev.nodeType];
    if (bodyOf && frame) return [this.containerNext(bodyOf, frame.container, frame.index, at)];
    if (ev.attempt > 1) return []; // retries are node_retry events of the first start
    if (CONTAINERS.has(ev.nodeType)) return [this.containerStarted(ev.nodeType, ev.nodeId, at)];
    this.steps++;
    const exec: Execution = {
      id: executionId(this.ctx.runId, this.segment, ev.key, ev.attempt),
      index: ++this.nodeIndex,
      startedAt: at,
      ...this.enclosing(frame),
    };
    this.executions.set(ev.key, exec);
    // A human-input node continuing after its pause reports the answer, not a second start.
    if (this.waiting.has(ev.key)) return [];
    return [
      this.emit("node_started", {
        id: exec.id,
        node_id: ev.nodeId,
        node_type: ev.nodeType,
        title: ev.title,
        index: exec.index,
        predecessor_node_id: null,
        inputs: null,
        created_at: sec(at),
        extras: {},
        iteration_id: exec.iterationId,
        loop_id: exec.loopId,
      }),
    ];
  }

  private enclosing(frame: ReturnType<typeof frameOf>): { iterationId: string | null; loopId: string | null } {
    if (!frame) return { iterationId: null, loopId: null };
    const type = this.nodes.get(frame.container)?.type;
    return {
      iterationId: type === "iteration" ? frame.container : null,
      loopId: type === "loop" ? frame.container : null,
    };
  }

  private containerStarted(type: string, nodeId: string, at: number): DifyEvent {
    return this.emit(`${type}_started`, {
      id: nodeId,
      node_id: nodeId,
      node_type: type,
      title: this.nodes.get(nodeId)?.title ?? "",
      created_at: sec(at),
      extras: {},
      inputs: {},
      metadata: {},
    });
  }

  private containerNext(type: "iteration" | "loop", containerId: string, index: number, at: number): DifyEvent {
    return this.emit(`${type}_next`, {
      id: containerId,
      node_id: containerId,
      node_type: type,
      title: this.nodes.get(containerId)?.title ?? "",
      index,
      created_at: sec(at),
      extras: {},
      ...(type === "loop" ? { pre_loop_output: {} } : {}),
    });
  }

  private nodeFinished(ev: Extract<RunEvent, { type: "node_finished" }>, at: number): DifyEvent[] {
    if (ev.cached || BODY_STARTS[ev.nodeType]) return []; // a resume replaying commits: the client saw them
    if (ev.status === "exception") this.exceptions++;
    this.tokens += ev.usage?.totalTokens ?? 0;
    this.promptTokens += ev.usage?.promptTokens ?? 0;
    this.completionTokens += ev.usage?.completionTokens ?? 0;
    if (CONTAINERS.has(ev.nodeType)) return [this.containerCompleted(ev, at)];
    const exec = this.execution(ev.key);
    const out: DifyEvent[] = [];
    if (this.waiting.delete(ev.key)) out.push(this.humanInputAnswered(ev));
    const startedAt = exec?.startedAt ?? at;
    out.push(
      this.emit("node_finished", {
        id: exec?.id ?? executionId(this.ctx.runId, this.segment, ev.key, 1),
        node_id: ev.nodeId,
        node_type: ev.nodeType,
        title: this.nodes.get(ev.nodeId)?.title ?? "",
        index: exec?.index ?? 0,
        predecessor_node_id: null,
        inputs: null,
        process_data: null,
        outputs: ev.outputs ?? null,
        status: ev.status,
        error: ev.error?.message ?? null,
        elapsed_time: (at - startedAt) / 1000,
        execution_metadata: ev.usage ? { total_tokens: ev.usage.totalTokens, total_price: 0, currency: "USD" } : null,
        created_at: sec(startedAt),
        finished_at: sec(at),
        files: filesIn(ev.outputs ?? {}),
        iteration_id: exec?.iterationId ?? null,
        loop_id: exec?.loopId ?? null,
      }),
    );
    return out;
  }

  private containerCompleted(ev: Extract<RunEvent, { type: "node_finished" }>, at: number): DifyEvent {
    return this.emit(`${ev.nodeType}_completed`, {
      id: ev.nodeId,
      node_id: ev.nodeId,
      node_type: ev.nodeType,
      title: this.nodes.get(ev.nodeId)?.title ?? "",
      outputs: ev.outputs ?? null,
      created_at: sec(at),
      extras: {},
      inputs: {},
      status: ev.status === "failed" ? "failed" : "succeeded",
      error: ev.error?.message ?? null,
      elapsed_time: ev.durationMs / 1000,
      total_tokens: 0,
      execution_metadata: {},
      finished_at: sec(at),
      steps: 0,
    });
  }

  private nodeRetry(ev: Extract<RunEvent, { type: "node_retry" }>, at: number): DifyEvent[] {
    const exec = this.execution(ev.key);
    const node = this.nodes.get(ev.nodeId);
    return [
      this.emit("node_retry", {
        id: exec?.id ?? "",
        node_id: ev.nodeId,
        node_type: node?.type ?? "",
        title: node?.title ?? "",
        index: exec?.index ?? 0,
        predecessor_node_id: null,
        inputs: null,
        process_data: null,
        outputs: null,
        status: "retry",
        error: ev.reason,
        elapsed_time: exec ? (at - exec.startedAt) / 1000 : 0,
        created_at: sec(exec?.startedAt ?? at),
        finished_at: sec(at),
        retry_index: ev.attempt,
        iteration_id: exec?.iterationId ?? null,
        loop_id: exec?.loopId ?? null,
        execution_metadata: null,
        files: [],
      }),
    ];
  }

  private humanInputRequired(form: PendingForm, nodeId: string): DifyEvent {
    return this.emit("human_input_required", {
      form_id: form.formId,
      node_id: nodeId,
      node_title: form.nodeTitle,
      form_content: form.content,
      inputs: form.inputs,
      actions: form.actions,
      display_in_ui: true,
      ...formDisposition(this.ctx.workflow, nodeId, form.token),
      resolved_default_values: form.defaults,
      expiration_time: form.expiresAt === null ? null : sec(form.expiresAt),
    });
  }

  /** Dify's HumanInputRequired pause reason, enriched as its service API sends it (form_token, expiration_time). */
  private pauseReason(p: { key: string; nodeId: string; formId: string }): Record<string, unknown> {
    const form = this.forms.get(p.key);
    return {
      TYPE: "human_input_required",
      form_id: p.formId,
      form_content: form?.content ?? "",
      inputs: form?.inputs ?? [],
      actions: form?.actions ?? [],
      display_in_ui: true,
      node_id: p.nodeId,
      node_title: form?.nodeTitle ?? this.nodes.get(p.nodeId)?.title ?? "",
      ...formDisposition(this.ctx.workflow, p.nodeId, form?.token ?? null),
      resolved_default_values: form?.defaults ?? {},
      expiration_time: form?.expiresAt === null || form?.expiresAt === undefined ? null : sec(form.expiresAt),
    };
  }

  private humanInputAnswered(ev: Extract<RunEvent, { type: "node_finished" }>): DifyEvent {
    const o = ev.outputs ?? {};
    const title = this.nodes.get(ev.nodeId)?.title ?? "";
    if (ev.port === "__timeout") {
      const expires = this.forms.get(ev.key)?.expiresAt;
      return this.emit("human_input_form_timeout", {
        node_id: ev.nodeId,
        node_title: title,
        expiration_time: expires === null || expires === undefined ? null : sec(expires),
      });
    }
    const submitted = Object.fromEntries(Object.entries(o).filter(([k]) => !k.startsWith("__")));
    return this.emit("human_input_form_filled", {
      node_id: ev.nodeId,
      node_title: title,
      rendered_content: o.__rendered_content ?? "",
      action_id: o.__action_id ?? "",
      action_text: o.__action_value ?? "",
      submitted_data: submitted,
    });
  }

  private text(ev: Extract<RunEvent, { type: "text_chunk" }>, at: number): DifyEvent[] {
    const selector = ev.selector ?? null;
    if (this.ctx.mode === "workflow") {
      if (!selector || !this.endTexts.has(selector.join("."))) return [];
      const { conversation_id, message_id, ...base } = this.base();
      return [{ event: "text_chunk", ...base, data: { text: ev.text, from_variable_selector: selector } }];
    }
    // A resumed run re-streams the reply from its start: what the client already has is not sent again.
    let text = ev.text;
    if (this.replayed < this.sent.length) {
      const skip = Math.min(text.length, this.sent.length - this.replayed);
      this.replayed += skip;
      text = text.slice(skip);
      if (!text) return [];
    }
    this.sent += text;
    this.replayed = this.sent.length;
    return [
      {
        event: "message",
        ...this.base(),
        id: this.ctx.messageId,
        answer: text,
        from_variable_selector: selector,
        created_at: sec(at),
      },
    ];
  }

  private status(ev: Extract<RunEvent, { type: "run_finished" }>): string {
    return ev.status === "failed" && ev.error?.code === STOPPED ? "stopped" : ev.status;
  }

  private runFinished(ev: Extract<RunEvent, { type: "run_finished" }>, at: number): DifyEvent[] {
    const elapsed = (at - this.ctx.createdAt) / 1000;
    if (ev.status === "paused") {
      const paused = ev.paused ?? [];
      return [
        this.emit("workflow_paused", {
          workflow_run_id: this.ctx.runId,
          paused_nodes: paused.map((p) => p.nodeId),
          // Dify's service API never sends a paused run's partial outputs.
          outputs: {},
          reasons: paused.map((p) => this.pauseReason(p)),
          status: "paused",
          created_at: sec(this.ctx.createdAt),
          elapsed_time: elapsed,
          total_tokens: this.tokens,
          total_steps: this.steps,
        }),
      ];
    }
    const status = this.status(ev);
    const finished = this.emit("workflow_finished", {
      id: this.ctx.runId,
      workflow_id: this.ctx.workflowId,
      status,
      outputs: ev.outputs ?? {},
      error: ev.error?.message ?? null,
      elapsed_time: elapsed,
      total_tokens: this.tokens,
      total_steps: this.steps,
      created_by: { id: this.ctx.user, user: this.ctx.user },
      created_at: sec(this.ctx.createdAt),
      finished_at: sec(at),
      exceptions_count: this.exceptions,
      files: filesIn(ev.outputs ?? {}),
    });
    if (this.ctx.mode === "workflow") return [finished];
    if (status === "failed") {
      // Dify's chatflow: the failed workflow_finished, then an error event; no message_end.
      const { workflow_run_id, ...base } = this.base();
      return [
        finished,
        {
          event: "error",
          ...base,
          status: 400,
          code: "invalid_param",
          message: `Run failed: ${ev.error?.message ?? ""}`,
        },
      ];
    }
    // Dify's chatflow: workflow_finished, then message_end, which ends the stream (clients read usage from it).
    return [finished, this.messageEnd(at)];
  }

  private messageEnd(at: number): DifyEvent {
    const { workflow_run_id, ...base } = this.base();
    return {
      event: "message_end",
      ...base,
      id: this.ctx.messageId,
      metadata: { usage: this.usage(at) },
      files: [],
    };
  }

  /** Dify's LLMUsage of the run so far (Weft does not price tokens: prices are "0"). */
  usage(at: number): Record<string, unknown> {
    return {
      prompt_tokens: this.promptTokens,
      prompt_unit_price: "0",
      prompt_price_unit: "0",
      prompt_price: "0",
      completion_tokens: this.completionTokens,
      completion_unit_price: "0",
      completion_price_unit: "0",
      completion_price: "0",
      total_tokens: this.tokens,
      total_price: "0",
      currency: "USD",
      latency: (at - this.ctx.createdAt) / 1000,
    };
  }
}
