import { describeNode } from "../ir/describe.js";
import { NodeExecutionError, type PendingPause, RunPause, WeftError } from "../ir/errors.js";
import type { BodyRunOptions, BodyRunResult, NodeEvent, NodeResult, NodeTypeDef, NodeTypes } from "../ir/registry.js";
import type { WorkflowEdge, WorkflowNode } from "../ir/workflow.js";
import type { RunEvent } from "../store/run-events.js";
import type { AttemptRecord, NodeCommit, RunStore } from "../store/runs.js";
import { type AttemptRun, type AttemptTarget, runAttempt } from "./attempt.js";
import { errorStrategyOutcome } from "./error-strategy.js";
import { gateRejections, gatesOf } from "./gates.js";
import { edgeKey, GraphIndex } from "./graph.js";
import { interruption, interruptsRun } from "./interrupt.js";
import type { VariablePool } from "./pool.js";
import { retriesError, retryPolicy, sleep } from "./retry.js";
import { AnswerStream } from "./stream.js";

type EdgeState = "unknown" | "taken" | "skipped";

export interface SchedulerOptions extends AttemptRun {
  store: RunStore;
  /** Commits of an earlier attempt at this run: those nodes are not executed again. */
  resumeFrom?: Map<string, NodeCommit>;
  concurrency: number;
  maxSteps: number;
  deadline: number;
  /** See `RunOptions.stop`: once aborted no node starts, and no failure is committed. */
  stop?: AbortSignal;
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

/** The node's definition and parsed config, refusing what Weft cannot execute. */
function executable(node: WorkflowNode, types: NodeTypes): { def: NodeTypeDef<any>; cfg: Record<string, any> } {
  const desc = describeNode(node, types);
  const def = desc.def;
  if (!def) throw new NodeExecutionError("node.unknown_type", `node type "${node.type}" is not known to Weft`, node.id);
  if (!desc.known) {
    const d = desc.configDiagnostics[0];
    throw new NodeExecutionError("config.invalid", d?.message ?? "invalid node config", node.id, { field: d?.field });
  }
  if (!def.execute) {
    throw new NodeExecutionError("node.not_executable", `node type "${node.type}" cannot be executed by Weft`, node.id);
  }
  return { def, cfg: (desc.config ?? node.config) as Record<string, any> };
}

/** One node in one frame as its attempts see it; methods, not per-node closures, pass its chunks and bodies on. */
class FrameTarget implements AttemptTarget {
  readonly pool: VariablePool;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly frame: Frame,
    readonly node: WorkflowNode,
    readonly key: string,
    readonly def: NodeTypeDef<any>,
    readonly cfg: Record<string, any>,
  ) {
    this.pool = frame.pool;
  }

  emitChunk(ev: NodeEvent): void {
    this.scheduler.chunk(this.node, this.frame, ev);
  }

  runBody(opts: BodyRunOptions): Promise<BodyRunResult> {
    return this.scheduler.runBody(this.node, this.frame, opts);
  }
}

interface Succeeded {
  result: NodeResult;
  writes: Array<{ selector: string[]; value: unknown }>;
  rec: AttemptRecord;
}

/**
 * Ready-queue execution with Dify's edge semantics: a node runs when none of its incoming edges is
 * unresolved and at least one is taken; a node whose incoming edges are all skipped is skipped and
 * passes the skip on. Every completed node is committed to the store before successors start.
 */
export class Scheduler {
  readonly graph: GraphIndex;
  readonly completed: CompletedNode[] = [];
  /** Nodes holding one of the run's `concurrency` slots, and those waiting for one (first come, first served). */
  private active = 0;
  private readonly waiting: Array<() => void> = [];
  private steps = 0;
  exceptions = 0;
  /** Advanced-chat only: the user-visible reply stream (answer sessions). */
  stream?: AnswerStream;

  constructor(private readonly o: SchedulerOptions) {
    this.graph = GraphIndex.of(o.workflow);
  }

  async runTop(pool: VariablePool): Promise<void> {
    const start = this.graph.topStart(this.o.types);
    if (!start) throw new WeftError("run.no_start", "the workflow has no start node");
    if (this.o.workflow.mode === "advanced-chat") {
      this.stream = new AnswerStream(this.graph, this.o.types, start, (nodeId, text, selector) =>
        this.o.onEvent?.({ type: "text_chunk", runId: this.o.runId, nodeId, text, selector }),
      );
    }
    await this.runFrame({ scope: null, start, pool, prefix: "", ranTypes: new Set() });
  }

  /** Run one scope (the top level or one container body) to completion; throws on an unhandled node failure. */
  private runFrame(frame: Frame): Promise<void> {
    const nodes = this.graph.scopeNodes(frame.scope);
    const edgeState = this.unknownEdges(nodes);
    const resolved = new Set<string>();
    const done = new Set<string>();
    const skipped = new Set<string>();
    let running = 0;
    let failure: unknown;
    // Nodes waiting for a human: their successors stay unresolved, the rest of the frame runs on.
    const paused: PendingPause[] = [];
    const stream = this.streamOf(frame, edgeState, { resolved, done, skipped });

    return new Promise<void>((resolve, reject) => {
      const finishIfIdle = () => {
        if (running > 0) return;
        if (failure) return reject(failure);
        if (paused.length > 0) return reject(new RunPause(paused));
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
        this.o.onEvent?.({ type: "node_skipped", runId: this.o.runId, key: frame.prefix + nodeId, nodeId });
        setOutEdges(nodeId, () => false);
        stream?.pump();
      };

      const consider = (nodeId: string) => {
        if (resolved.has(nodeId) || failure) return;
        const joined = this.joinState(nodeId, edgeState);
        if (joined === "taken") launch(nodeId);
        else if (joined === "skipped") skip(nodeId);
      };

      const launch = (nodeId: string) => {
        resolved.add(nodeId);
        running++;
        const node = this.graph.byId.get(nodeId)!;
        this.schedule(node, frame)
          .then((res) => {
            frame.ranTypes.add(node.type);
            done.add(nodeId);
            setOutEdges(nodeId, (e) => (res.port === undefined ? true : e.sourcePort === res.port));
            stream?.pump();
          })
          .catch((e) => {
            if (e instanceof RunPause) paused.push(...e.pending);
            else failure ??= e;
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

  /** The answer stream, on the top frame only, told how to read this frame's progress. */
  private streamOf(
    frame: Frame,
    edgeState: Map<string, EdgeState>,
    nodes: { resolved: Set<string>; done: Set<string>; skipped: Set<string> },
  ): AnswerStream | undefined {
    if (frame.scope !== null || !this.stream) return undefined;
    const { resolved, done, skipped } = nodes;
    this.stream.attach({
      edgeState: (e) => edgeState.get(edgeKey(e)) ?? "unknown",
      status: (id) => (skipped.has(id) ? "skipped" : done.has(id) ? "done" : resolved.has(id) ? "running" : "pending"),
      read: (sel) => frame.pool.read(sel),
    });
    return this.stream;
  }

  /**
   * Dify's join rule over a node's incoming edges: "unknown" while any is unresolved, "taken" once none is and
   * one is taken (the node runs), "skipped" when all are. A loop, not map/some: this runs for every node.
   */
  private joinState(nodeId: string, edgeState: Map<string, EdgeState>): EdgeState {
    let taken = false;
    for (const e of this.graph.in.get(nodeId) ?? []) {
      const s = edgeState.get(edgeKey(e)) ?? "unknown";
      if (s === "unknown") return "unknown";
      if (s === "taken") taken = true;
    }
    return taken ? "taken" : "skipped";
  }

  private unknownEdges(nodes: WorkflowNode[]): Map<string, EdgeState> {
    const states = new Map<string, EdgeState>();
    for (const n of nodes) for (const e of this.graph.out.get(n.id) ?? []) states.set(edgeKey(e), "unknown");
    return states;
  }

  /** Run the node within the concurrency limit; containers wait on their bodies, so they take no slot their children need. */
  private schedule(node: WorkflowNode, frame: Frame): Promise<{ port?: string }> {
    if (describeNode(node, this.o.types).def?.container) return this.executeNode(node, frame);
    if (this.active < Math.max(1, this.o.concurrency)) {
      this.active++;
      return this.inSlot(node, frame);
    }
    return new Promise<void>((resolve) => this.waiting.push(resolve)).then(() => this.inSlot(node, frame));
  }

  /**
   * The node in a slot it holds, handing the slot on when it ends. A counter and a queue of its own rather than
   * p-limit, whose per-run closures and per-call promises were a measurable share of a small run's allocations.
   */
  private async inSlot(node: WorkflowNode, frame: Frame): Promise<{ port?: string }> {
    try {
      // Started a microtask later, as p-limit did: the caller finishes resolving its ready nodes first.
      await undefined;
      return await this.executeNode(node, frame);
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }

  private branchNode(node: WorkflowNode): boolean {
    // Nodes whose only port is `source` take every edge; branch and fail-branch nodes route by port.
    const ports = describeNode(node, this.o.types).ports;
    return !(ports.length === 1 && ports[0] === "source");
  }

  /**
   * One node in one frame: replay its commit on resume; otherwise attempt it (retries, gates, timeouts),
   * then commit what it produced or what its error strategy says. Throws when the failure fails the run.
   */
  private async executeNode(node: WorkflowNode, frame: Frame): Promise<{ port?: string }> {
    const key = frame.prefix + node.id;
    const cached = this.o.resumeFrom?.get(key);
    if (cached && (cached.status === "succeeded" || cached.status === "exception"))
      return this.replay(node, frame, key, cached);
    this.checkRunLimits(node);
    const { def, cfg } = executable(node, this.o.types);
    const target = new FrameTarget(this, frame, node, key, def, cfg);
    const settled = await this.attemptUntilSettled(target);
    if ("result" in settled) return this.commitSucceeded(target, frame, settled);
    if ("paused" in settled) return this.pause(target, settled.paused, settled.rec);
    return this.commitFailed(target, frame, settled.error);
  }

  /**
   * A node waiting for a human (or a container whose body holds one): traced as paused, announced with its
   * form, committed nothing; the pause travels up to the frame, which stops once its other nodes are done.
   */
  private async pause(t: AttemptTarget, signal: RunPause, rec: AttemptRecord): Promise<never> {
    await this.o.store.appendAttempt({ ...rec, status: "paused" });
    for (const p of signal.pending) {
      if (p.key !== t.key) continue;
      this.o.onEvent?.({
        type: "node_paused",
        runId: this.o.runId,
        key: p.key,
        nodeId: p.nodeId,
        nodeType: t.node.type,
        form: p.form,
      });
    }
    throw signal;
  }

  /** A node committed by an earlier attempt at this run: its outputs and writes return without running it. */
  private replay(node: WorkflowNode, frame: Frame, key: string, cached: NodeCommit): { port?: string } {
    frame.pool.set(node.id, cached.outputs);
    for (const w of cached.writes ?? []) frame.pool.write(w.selector, w.value);
    if (cached.status === "exception") this.exceptions++;
    // A resumed run replays the reply: top-level answers re-stream from the pool, body answers here.
    if (node.type === "answer" && frame.scope !== null)
      this.stream?.direct(node.id, String(cached.outputs.answer ?? ""), [node.id, "answer"]);
    const status = cached.status === "exception" ? "exception" : "succeeded";
    this.completed.push({ nodeId: node.id, type: node.type, status, outputs: cached.outputs, key });
    this.finished(node, key, { status, outputs: cached.outputs, port: cached.port, durationMs: 0, cached: true });
    return { port: this.branchNode(node) ? cached.port : undefined };
  }

  private checkRunLimits(node: WorkflowNode): void {
    const o = this.o;
    if (o.signal.aborted) throw new NodeExecutionError("run.cancelled", "the run was cancelled", node.id);
    const stopped = interruption(o.stop);
    if (stopped) throw stopped;
    if (++this.steps > o.maxSteps) {
      throw new NodeExecutionError("run.too_many_steps", `run exceeded ${o.maxSteps} node executions`, node.id);
    }
    if (Date.now() > o.deadline) throw new NodeExecutionError("run.timeout", "run exceeded its time limit", node.id);
  }

  /** Where a node's streamed text goes: the run's events, or the answer streams of an advanced-chat run. */
  chunk(node: WorkflowNode, frame: Frame, ev: NodeEvent): void {
    if (!this.stream) {
      this.o.onEvent?.({
        type: "text_chunk",
        runId: this.o.runId,
        nodeId: node.id,
        text: ev.text,
        selector: ev.selector,
      });
    } else if (frame.scope === null) {
      // Top-level answers are streamed by their sessions; other nodes' text feeds those sessions.
      if (node.type !== "answer") this.stream.chunk(node.id, ev.text, ev.selector);
    } else if (node.type === "answer") {
      // Answers inside loop/iteration bodies go out whole when they run.
      this.stream.direct(node.id, ev.text, ev.selector);
    }
  }

  /**
   * Attempt the node until an attempt passes its gates, or no retry is left. Error retries (retry_config)
   * and gate retries (with the gates' messages as feedback) are counted separately; every attempt is traced.
   */
  private async attemptUntilSettled(
    t: AttemptTarget,
  ): Promise<Succeeded | { error: unknown } | { paused: RunPause; rec: AttemptRecord }> {
    const o = this.o;
    const gates = gatesOf(t.cfg);
    const policy = retryPolicy(t.cfg, gates.length);
    const feedback: string[] = [];
    let gateRetries = 0;
    let errorRetries = 0;
    for (let attempt = 1; ; attempt++) {
      const a = await runAttempt(o, t, attempt, feedback);
      // Waiting for a human is no failure: never retried, never handed to the error strategy.
      if (a.error instanceof RunPause) return { paused: a.error, rec: a.rec };
      let error = a.error;
      if (a.result) {
        const rejected = gateRejections(gates, a.result.outputs);
        if (rejected.length === 0) return { result: a.result, writes: a.writes, rec: a.rec };
        const reason = rejected.join("; ");
        await o.store.appendAttempt({
          ...a.rec,
          status: "gate-rejected",
          outputs: a.result.outputs,
          error: { code: "gate.rejected", message: reason },
        });
        if (gateRetries < policy.maxGateRetries) {
          gateRetries++;
          feedback.push(...rejected);
          o.onEvent?.({ type: "node_retry", runId: o.runId, key: t.key, nodeId: t.node.id, attempt, reason });
          continue;
        }
        error = new NodeExecutionError("gate.failed", `output rejected by gates: ${reason}`, t.node.id);
      }
      const info = errorInfo(error);
      await o.store.appendAttempt({ ...a.rec, status: "failed", error: info });
      const stopped = interruption(o.stop);
      if (stopped) return { error: stopped };
      if (!retriesError(policy, errorRetries, error, o.signal)) return { error };
      errorRetries++;
      o.onEvent?.({ type: "node_retry", runId: o.runId, key: t.key, nodeId: t.node.id, attempt, reason: info.message });
      await sleep(policy.intervalMs, o.signal);
    }
  }

  /** Trace and commit a successful attempt; the successors start only after the commit is durable. */
  private async commitSucceeded(t: AttemptTarget, frame: Frame, s: Succeeded): Promise<{ port?: string }> {
    const { node, key } = t;
    const { outputs } = s.result;
    const port = s.result.port ?? "source";
    // Spelled out: spreading the record here was a measurable share of a small run's CPU.
    const r = s.rec;
    const attempt: AttemptRecord = {
      runId: r.runId,
      key: r.key,
      nodeId: r.nodeId,
      nodeType: r.nodeType,
      title: r.title,
      attempt: r.attempt,
      status: r.status,
      inputs: r.inputs,
      startedAt: r.startedAt,
      endedAt: r.endedAt,
      outputs,
      port,
      usage: s.result.usage,
      meta: s.result.meta,
    };
    const commit = await this.o.store.commitNode(
      this.o.runId,
      { key, nodeId: node.id, status: "succeeded", outputs, port, writes: s.writes },
      attempt,
    );
    if (commit.status !== "succeeded" || commit.outputs !== outputs) {
      // Another worker committed this node first: its result stands and ours is dropped.
      frame.pool.set(node.id, commit.outputs);
      for (const w of commit.writes ?? []) frame.pool.write(w.selector, w.value);
      const status = commit.status === "exception" ? "exception" : "succeeded";
      this.completed.push({ nodeId: node.id, type: node.type, status, outputs: commit.outputs, key });
      return { port: this.branchNode(node) ? commit.port : undefined };
    }
    frame.pool.set(node.id, outputs);
    this.completed.push({ nodeId: node.id, type: node.type, status: "succeeded", outputs, key });
    if (this.o.onEvent) {
      const durationMs = s.rec.endedAt - s.rec.startedAt;
      this.finished(node, key, {
        status: "succeeded",
        outputs,
        port,
        durationMs,
        cached: false,
        usage: s.result.usage,
      });
    }
    return { port: this.branchNode(node) ? port : undefined };
  }

  /** A node that failed for good: commit its error strategy's outputs, or fail the run. */
  private async commitFailed(t: AttemptTarget, frame: Frame, error: unknown): Promise<{ port?: string }> {
    const { node, key } = t;
    // A failure while the run is being stopped may be the stop itself: nothing is committed, resume re-runs it.
    if (interruptsRun(error)) throw error;
    const stopped = interruption(this.o.stop);
    if (stopped) throw stopped;
    const info = errorInfo(error);
    const handled = errorStrategyOutcome(t.cfg, info);
    if (!handled) {
      this.finished(node, key, { status: "failed", error: info, durationMs: 0, cached: false });
      if (error instanceof NodeExecutionError) throw error;
      throw new NodeExecutionError(info.code, info.message, node.id);
    }
    const { outputs, port } = handled;
    await this.o.store.commitNode(this.o.runId, { key, nodeId: node.id, status: "exception", outputs, port });
    frame.pool.set(node.id, outputs);
    this.exceptions++;
    this.completed.push({ nodeId: node.id, type: node.type, status: "exception", outputs, key });
    this.finished(node, key, { status: "exception", outputs, port, error: info, durationMs: 0, cached: false });
    return { port: handled.route };
  }

  private finished(
    node: WorkflowNode,
    key: string,
    f: Omit<Extract<RunEvent, { type: "node_finished" }>, "type" | "runId" | "key" | "nodeId" | "nodeType">,
  ): void {
    this.o.onEvent?.({ type: "node_finished", runId: this.o.runId, key, nodeId: node.id, nodeType: node.type, ...f });
  }

  async runBody(
    container: WorkflowNode,
    frame: Frame,
    opts: { scope: Record<string, unknown>; sharedPool: boolean; index: number },
  ): Promise<BodyRunResult> {
    const start = this.graph.bodyStart(container, this.o.types);
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
      // An interruption is not a failed item: it ends the container too, whatever its error mode.
      if (interruptsRun(e)) throw e;
      error = e instanceof Error ? e : new Error(String(e));
    }
    return { read: (sel) => pool.read(sel), ran: (type) => inner.ranTypes.has(type), error };
  }
}
