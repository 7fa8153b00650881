import pLimit, { type LimitFunction } from "p-limit";
import { describeNode } from "../ir/describe.js";
import { NodeExecutionError, WeftError } from "../ir/errors.js";
import type { BodyRunResult, ExecContext, NodeResult } from "../ir/registry.js";
import type { ExecServices } from "../ir/services.js";
import type { Workflow, WorkflowEdge, WorkflowNode } from "../ir/workflow.js";
import type { AttemptRecord, NodeCommit, RunStore } from "../store/runs.js";
import type { RunEvent } from "./events.js";
import { checkGate, type Gate } from "./gates.js";
import { edgeKey, GraphIndex } from "./graph.js";
import type { VariablePool } from "./pool.js";
import { renderTemplate } from "./render.js";
import { AnswerStream } from "./stream.js";

type EdgeState = "unknown" | "taken" | "skipped";

export interface SchedulerOptions {
  runId: string;
  workflow: Workflow;
  inputs: Record<string, unknown>;
  services: ExecServices;
  store: RunStore;
  /** Commits of an earlier attempt at this run: those nodes are not executed again. */
  resumeFrom?: Map<string, NodeCommit>;
  concurrency: number;
  maxSteps: number;
  deadline: number;
  onEvent: (e: RunEvent) => void;
  signal: AbortSignal;
}

export interface CompletedNode {
  nodeId: string;
  type: string;
  status: "succeeded" | "exception";
  outputs: Record<string, unknown>;
  key: string;
}

interface Frame {
  scope: string | null;
  start: string;
  pool: VariablePool;
  prefix: string;
  ranTypes: Set<string>;
}

function errorInfo(e: unknown): { code: string; message: string } {
  if (e instanceof WeftError) return { code: e.code, message: e.message };
  if (e instanceof Error) return { code: "node.error", message: e.message };
  return { code: "node.error", message: String(e) };
}

/** Coerce a Dify default_value entry (strings are JSON-parsed for non-string types). */
function defaultValue(entry: { type: string; value: unknown }): unknown {
  if (typeof entry.value === "string" && entry.type !== "string") {
    try {
      return JSON.parse(entry.value);
    } catch {
      return entry.value;
    }
  }
  return entry.value;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => (clearTimeout(t), resolve()), { once: true });
  });

/**
 * Ready-queue execution with Dify's edge semantics: a node runs when none of its incoming edges is
 * unresolved and at least one is taken; a node whose incoming edges are all skipped is skipped and
 * passes the skip on. Every completed node is committed to the store before successors start.
 */
export class Scheduler {
  readonly graph: GraphIndex;
  readonly completed: CompletedNode[] = [];
  private readonly limit: LimitFunction;
  private steps = 0;
  exceptions = 0;
  /** Advanced-chat only: the user-visible reply stream (answer sessions). */
  stream?: AnswerStream;

  constructor(private readonly o: SchedulerOptions) {
    this.graph = new GraphIndex(o.workflow);
    this.limit = pLimit(Math.max(1, o.concurrency));
  }

  async runTop(pool: VariablePool): Promise<void> {
    const start = this.graph.topStart();
    if (!start) throw new WeftError("run.no_start", "the workflow has no start node");
    if (this.o.workflow.mode === "advanced-chat") {
      this.stream = new AnswerStream(this.graph, start, (nodeId, text, selector) =>
        this.o.onEvent({ type: "text_chunk", runId: this.o.runId, nodeId, text, selector }),
      );
    }
    await this.runFrame({ scope: null, start, pool, prefix: "", ranTypes: new Set() });
  }

  /** Run one scope (the top level or one container body) to completion; throws on an unhandled node failure. */
  private runFrame(frame: Frame): Promise<void> {
    const nodes = this.graph.scopeNodes(frame.scope);
    const edgeState = new Map<string, EdgeState>();
    for (const n of nodes) for (const e of this.graph.out.get(n.id) ?? []) edgeState.set(edgeKey(e), "unknown");
    const resolved = new Set<string>();
    const done = new Set<string>();
    const skipped = new Set<string>();
    let running = 0;
    let failure: unknown;
    const stream = frame.scope === null ? this.stream : undefined;
    stream?.attach({
      edgeState: (e) => edgeState.get(edgeKey(e)) ?? "unknown",
      status: (id) => (skipped.has(id) ? "skipped" : done.has(id) ? "done" : resolved.has(id) ? "running" : "pending"),
      read: (sel) => frame.pool.read(sel),
    });

    return new Promise<void>((resolve, reject) => {
      const finishIfIdle = () => {
        if (running > 0) return;
        if (failure) return reject(failure);
        stream?.pump();
        resolve();
      };

      const setOutEdges = (nodeId: string, taken: (e: WorkflowEdge) => boolean) => {
        const targets = new Set<string>();
        for (const e of this.graph.out.get(nodeId) ?? []) {
          edgeState.set(edgeKey(e), taken(e) ? "taken" : "skipped");
          targets.add(e.target);
        }
        for (const t of targets) consider(t);
      };

      const skip = (nodeId: string) => {
        if (resolved.has(nodeId)) return;
        resolved.add(nodeId);
        skipped.add(nodeId);
        this.o.onEvent({ type: "node_skipped", runId: this.o.runId, key: frame.prefix + nodeId, nodeId });
        setOutEdges(nodeId, () => false);
        stream?.pump();
      };

      const consider = (nodeId: string) => {
        if (resolved.has(nodeId) || failure) return;
        const states = (this.graph.in.get(nodeId) ?? []).map((e) => edgeState.get(edgeKey(e)) ?? "unknown");
        if (states.some((s) => s === "unknown")) return;
        if (states.some((s) => s === "taken")) launch(nodeId);
        else skip(nodeId);
      };

      const launch = (nodeId: string) => {
        resolved.add(nodeId);
        running++;
        const node = this.graph.byId.get(nodeId)!;
        const isContainer = !!describeNode(node).def?.container;
        // Containers wait on their bodies, so they must not hold a worker slot their children need.
        const job = () => this.executeNode(node, frame);
        (isContainer ? job() : this.limit(job))
          .then((res) => {
            frame.ranTypes.add(node.type);
            done.add(nodeId);
            setOutEdges(nodeId, (e) => (res.port === undefined ? true : e.sourcePort === res.port));
            stream?.pump();
          })
          .catch((e) => {
            failure ??= e;
          })
          .finally(() => {
            running--;
            finishIfIdle();
          });
      };

      // Dify marks every other root of the scope skipped up front, so joins never wait on them.
      for (const n of nodes) {
        if (n.id !== frame.start && (this.graph.in.get(n.id) ?? []).length === 0) skip(n.id);
      }
      if (!nodes.some((n) => n.id === frame.start)) {
        reject(new WeftError("run.no_start", `scope ${frame.scope ?? "top"} has no start node ${frame.start}`));
        return;
      }
      stream?.pump();
      launch(frame.start);
    });
  }

  private branchNode(node: WorkflowNode): boolean {
    // Nodes whose only port is `source` take every edge; branch and fail-branch nodes route by port.
    const ports = describeNode(node).ports;
    return !(ports.length === 1 && ports[0] === "source");
  }

  /** Resolve the node's declared inputs for the trace. */
  private traceInputs(node: WorkflowNode, pool: VariablePool): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const ref of describeNode(node).inputs) {
      const r = pool.read(ref.selector);
      out[ref.selector.join(".")] = r.found ? r.value : null;
    }
    return out;
  }

  private async executeNode(node: WorkflowNode, frame: Frame): Promise<{ port?: string }> {
    const key = frame.prefix + node.id;
    const o = this.o;
    const cached = o.resumeFrom?.get(key);
    if (cached && (cached.status === "succeeded" || cached.status === "exception")) {
      frame.pool.set(node.id, cached.outputs);
      for (const w of cached.writes ?? []) frame.pool.write(w.selector, w.value);
      if (cached.status === "exception") this.exceptions++;
      // A resumed run replays the reply: top-level answers re-stream from the pool, body answers here.
      if (node.type === "answer" && frame.scope !== null)
        this.stream?.direct(node.id, String(cached.outputs.answer ?? ""), [node.id, "answer"]);
      this.completed.push({ nodeId: node.id, type: node.type, status: cached.status, outputs: cached.outputs, key });
      this.finished(node, key, {
        status: cached.status,
        outputs: cached.outputs,
        port: cached.port,
        durationMs: 0,
        cached: true,
      });
      return { port: this.branchNode(node) ? cached.port : undefined };
    }

    if (o.signal.aborted) throw new NodeExecutionError("run.cancelled", "the run was cancelled", node.id);
    if (++this.steps > o.maxSteps) {
      throw new NodeExecutionError("run.too_many_steps", `run exceeded ${o.maxSteps} node executions`, node.id);
    }
    if (Date.now() > o.deadline) throw new NodeExecutionError("run.timeout", "run exceeded its time limit", node.id);

    const desc = describeNode(node);
    const def = desc.def;
    const cfg = (desc.config ?? node.config) as Record<string, any>;
    if (!def)
      throw new NodeExecutionError("node.unknown_type", `node type "${node.type}" is not known to Weft`, node.id);
    if (!desc.known) {
      const d = desc.configDiagnostics[0];
      throw new NodeExecutionError("config.invalid", d?.message ?? "invalid node config", node.id, { field: d?.field });
    }
    if (!def.execute) {
      throw new NodeExecutionError(
        "node.not_executable",
        `node type "${node.type}" cannot be executed by Weft`,
        node.id,
      );
    }

    const retry = cfg.retry_config?.retry_enabled ? Math.max(0, Number(cfg.retry_config.max_retries ?? 0)) : 0;
    const interval = Number(cfg.retry_config?.retry_interval ?? 0);
    const gates: Gate[] = Array.isArray(cfg.gates) ? cfg.gates : [];
    const gateRetries = gates.length ? Math.max(retry, 2) : 0;
    const feedback: string[] = [];
    let lastError: unknown;
    let attempt = 0;
    let gateRejections = 0;
    let errorRetries = 0;

    while (true) {
      attempt++;
      const writes: Array<{ selector: string[]; value: unknown }> = [];
      const started = Date.now();
      const inputs = this.traceInputs(node, frame.pool);
      o.onEvent({
        type: "node_started",
        runId: o.runId,
        key,
        nodeId: node.id,
        nodeType: node.type,
        title: node.title,
        attempt,
      });
      const ac = new AbortController();
      const onAbort = () => ac.abort(o.signal.reason);
      o.signal.addEventListener("abort", onAbort, { once: true });
      const ctx: ExecContext<any> = {
        workflow: o.workflow,
        node,
        config: cfg,
        runId: o.runId,
        runInputs: o.inputs,
        attempt,
        feedback: [...feedback],
        read: (sel) => frame.pool.read(sel),
        render: (text, style) => renderTemplate(text, (s) => frame.pool.read(s), style),
        emit: (ev) => {
          if (ev.type !== "chunk") return;
          if (!this.stream) {
            o.onEvent({ type: "text_chunk", runId: o.runId, nodeId: node.id, text: ev.text, selector: ev.selector });
          } else if (frame.scope === null) {
            // Top-level answers are streamed by their sessions; other nodes' text feeds those sessions.
            if (node.type !== "answer") this.stream.chunk(node.id, ev.text, ev.selector);
          } else if (node.type === "answer") {
            // Answers inside loop/iteration bodies go out whole when they run.
            this.stream.direct(node.id, ev.text, ev.selector);
          }
        },
        writeVariable: (sel, value) => {
          frame.pool.write(sel, value);
          writes.push({ selector: [...sel], value });
        },
        runBody: (opts) => this.runBody(node, frame, opts),
        services: o.services,
        signal: ac.signal,
      };
      let result: NodeResult | undefined;
      let error: unknown;
      try {
        const timeoutMs = typeof cfg.timeout_seconds === "number" ? cfg.timeout_seconds * 1000 : 0;
        const exec = def.execute(ctx);
        result = timeoutMs
          ? await Promise.race([
              exec,
              new Promise<never>((_, rej) => {
                const t = setTimeout(() => {
                  ac.abort();
                  rej(new NodeExecutionError("node.timeout", `node timed out after ${cfg.timeout_seconds}s`, node.id));
                }, timeoutMs);
                exec.finally(() => clearTimeout(t)).catch(() => {});
              }),
            ])
          : await exec;
      } catch (e) {
        error = e;
      } finally {
        o.signal.removeEventListener("abort", onAbort);
      }
      const rec: AttemptRecord = {
        runId: o.runId,
        key,
        nodeId: node.id,
        nodeType: node.type,
        title: node.title,
        attempt,
        status: "succeeded",
        inputs,
        startedAt: started,
        endedAt: Date.now(),
      };
      if (result) {
        const rejected = gates.map((g) => checkGate(g, result!.outputs)).filter((m): m is string => !!m);
        if (rejected.length) {
          await o.store.appendAttempt({
            ...rec,
            status: "gate-rejected",
            outputs: result.outputs,
            error: { code: "gate.rejected", message: rejected.join("; ") },
          });
          if (gateRejections < gateRetries) {
            gateRejections++;
            feedback.push(...rejected);
            o.onEvent({
              type: "node_retry",
              runId: o.runId,
              key,
              nodeId: node.id,
              attempt,
              reason: rejected.join("; "),
            });
            continue;
          }
          error = new NodeExecutionError("gate.failed", `output rejected by gates: ${rejected.join("; ")}`, node.id);
          result = undefined;
        }
      }
      if (result) {
        const port = result.port ?? "source";
        await o.store.appendAttempt({ ...rec, outputs: result.outputs, port, usage: result.usage, meta: result.meta });
        // If another worker committed this node first, its result stands and ours is dropped.
        const commit = await o.store.commitNode(o.runId, {
          key,
          nodeId: node.id,
          status: "succeeded",
          outputs: result.outputs,
          port,
          writes,
        });
        if (commit.status !== "succeeded" || commit.outputs !== result.outputs) {
          frame.pool.set(node.id, commit.outputs);
          for (const w of commit.writes ?? []) frame.pool.write(w.selector, w.value);
          this.completed.push({
            nodeId: node.id,
            type: node.type,
            status: commit.status === "exception" ? "exception" : "succeeded",
            outputs: commit.outputs,
            key,
          });
          return { port: this.branchNode(node) ? commit.port : undefined };
        }
        frame.pool.set(node.id, result.outputs);
        this.completed.push({ nodeId: node.id, type: node.type, status: "succeeded", outputs: result.outputs, key });
        this.finished(node, key, {
          status: "succeeded",
          outputs: result.outputs,
          port,
          durationMs: rec.endedAt - started,
          cached: false,
        });
        return { port: this.branchNode(node) ? port : undefined };
      }
      lastError = error;
      const info = errorInfo(error);
      await o.store.appendAttempt({ ...rec, status: "failed", error: info });
      if (
        errorRetries < retry &&
        !o.signal.aborted &&
        !(error instanceof NodeExecutionError && error.code === "gate.failed")
      ) {
        errorRetries++;
        o.onEvent({ type: "node_retry", runId: o.runId, key, nodeId: node.id, attempt, reason: info.message });
        await sleep(interval, o.signal);
        continue;
      }
      break;
    }

    const info = errorInfo(lastError);
    const strategy = cfg.error_strategy;
    if (strategy === "default-value" || strategy === "fail-branch") {
      const outputs: Record<string, unknown> = { error_message: info.message, error_type: info.code };
      if (strategy === "default-value") for (const d of cfg.default_value ?? []) outputs[d.key] = defaultValue(d);
      const port = strategy === "fail-branch" ? "fail-branch" : "source";
      await o.store.commitNode(o.runId, { key, nodeId: node.id, status: "exception", outputs, port });
      frame.pool.set(node.id, outputs);
      this.exceptions++;
      this.completed.push({ nodeId: node.id, type: node.type, status: "exception", outputs, key });
      this.finished(node, key, { status: "exception", outputs, port, error: info, durationMs: 0, cached: false });
      // default-value takes every outgoing edge, as Dify does.
      return { port: strategy === "fail-branch" ? "fail-branch" : undefined };
    }
    this.finished(node, key, { status: "failed", error: info, durationMs: 0, cached: false });
    if (lastError instanceof NodeExecutionError) throw lastError;
    throw new NodeExecutionError(info.code, info.message, node.id);
  }

  private finished(
    node: WorkflowNode,
    key: string,
    f: Omit<Extract<RunEvent, { type: "node_finished" }>, "type" | "runId" | "key" | "nodeId" | "nodeType">,
  ): void {
    this.o.onEvent({ type: "node_finished", runId: this.o.runId, key, nodeId: node.id, nodeType: node.type, ...f });
  }

  private async runBody(
    container: WorkflowNode,
    frame: Frame,
    opts: { scope: Record<string, unknown>; sharedPool: boolean; index: number },
  ): Promise<BodyRunResult> {
    const start = this.graph.bodyStart(container);
    const pool = opts.sharedPool ? frame.pool : frame.pool.child();
    if (opts.sharedPool) {
      // Loop rounds share the pool, but inner outputs are cleared at the start of each round.
      for (const n of this.graph.scopeNodes(container.id)) pool.delete(n.id);
    }
    pool.set(container.id, opts.scope);
    const inner: Frame = {
      scope: container.id,
      start: start ?? "",
      pool,
      prefix: `${frame.prefix}${container.id}[${opts.index}]/`,
      ranTypes: new Set(),
    };
    let error: Error | undefined;
    try {
      if (!start)
        throw new NodeExecutionError("container.no_start", `container ${container.id} has no start node`, container.id);
      await this.runFrame(inner);
    } catch (e) {
      error = e instanceof Error ? e : new Error(String(e));
    }
    return { read: (sel) => pool.read(sel), ran: (type) => inner.ranTypes.has(type), error };
  }
}
