import { describeNode } from "../ir/describe.js";
import type { NodeTypes } from "../ir/registry.js";
import { replaceTemplateRefs } from "../ir/selector.js";
import type { WorkflowEdge, WorkflowNode } from "../ir/workflow.js";
import type { GraphIndex } from "./graph.js";
import { valueToMarkdown } from "./render.js";

type Segment = { kind: "text"; text: string } | { kind: "var"; selector: string[] };

interface Session {
  node: WorkflowNode;
  segments: Segment[];
  pos: number;
  /** The current segment is an LLM `text` being streamed chunk by chunk. */
  streaming: boolean;
  started: boolean;
  ancestors: Set<string>;
}

export interface FrameView {
  edgeState(e: WorkflowEdge): "unknown" | "taken" | "skipped";
  /** done = succeeded or exception (outputs in the pool). */
  status(nodeId: string): "pending" | "running" | "done" | "skipped";
  read(selector: readonly string[]): { found: boolean; value?: unknown };
}

function segmentsOf(template: string): Segment[] {
  const refs: string[][] = [];
  // Sentinels mark where each reference sat, so the text between them survives as text segments.
  const mark = "\u0000";
  const marked = replaceTemplateRefs(template, (sel) => `${mark}${refs.push(sel) - 1}${mark}`);
  const out: Segment[] = [];
  marked.split(new RegExp(`${mark}(\\d+)${mark}`)).forEach((part, i) => {
    if (i % 2 === 1) out.push({ kind: "var", selector: refs[Number(part)]! });
    else if (part) out.push({ kind: "text", text: part });
  });
  return out;
}

/**
 * Dify's response coordinator for advanced-chat answers (DIFY.md §2.11), at the top level: an answer
 * becomes active once some path from the start reaches it through edges that are taken or still open
 * behind a non-blocking node (branch, container, answer and assigner nodes block). One session streams at a
 * time, in graph order; its text segments go out at once, a referenced LLM `text` streams chunk by
 * chunk as the model writes it, other variables go out whole (markdown rendering) once their node is
 * done, and a segment whose node was skipped emits nothing. The concatenated chunks are the reply.
 */
export class AnswerStream {
  private readonly sessions: Session[];
  private view?: FrameView;
  private readonly topIds: Set<string>;
  transcript = "";

  constructor(
    private readonly graph: GraphIndex,
    private readonly types: NodeTypes,
    private readonly start: string,
    private readonly emit: (nodeId: string, text: string, selector?: string[]) => void,
  ) {
    const top = graph.scopeNodes(null);
    this.topIds = new Set(top.map((n) => n.id));
    const order = this.topoOrder(top);
    this.sessions = top
      .filter((n) => n.type === "answer")
      .sort((a, b) => order.get(a.id)! - order.get(b.id)!)
      .map((node) => ({
        node,
        segments: segmentsOf(String(node.config.answer ?? "")),
        pos: 0,
        streaming: false,
        started: false,
        ancestors: this.ancestorsOf(node.id),
      }));
  }

  attach(view: FrameView): void {
    this.view = view;
  }

  private topoOrder(nodes: WorkflowNode[]): Map<string, number> {
    const indeg = new Map(nodes.map((n) => [n.id, (this.graph.in.get(n.id) ?? []).length]));
    const queue = nodes.filter((n) => indeg.get(n.id) === 0).map((n) => n.id);
    const order = new Map<string, number>();
    while (queue.length) {
      const id = queue.shift()!;
      order.set(id, order.size);
      for (const e of this.graph.out.get(id) ?? []) {
        const d = (indeg.get(e.target) ?? 0) - 1;
        indeg.set(e.target, d);
        if (d === 0) queue.push(e.target);
      }
    }
    for (const n of nodes) if (!order.has(n.id)) order.set(n.id, order.size);
    return order;
  }

  private ancestorsOf(id: string): Set<string> {
    const seen = new Set<string>();
    const stack = [id];
    while (stack.length) {
      for (const e of this.graph.in.get(stack.pop()!) ?? []) {
        if (!seen.has(e.source)) {
          seen.add(e.source);
          stack.push(e.source);
        }
      }
    }
    return seen;
  }

  private readonly blockingCache = new Map<string, boolean>();
  private readonly writerCache = new Map<string, boolean>();

  private blocking(nodeId: string): boolean {
    let b = this.blockingCache.get(nodeId);
    if (b === undefined) {
      b = this.computeBlocking(nodeId);
      this.blockingCache.set(nodeId, b);
    }
    return b;
  }

  /** Assigners, and containers (whose bodies may hold assigners), can change conversation and loop values. */
  private writer(nodeId: string): boolean {
    let w = this.writerCache.get(nodeId);
    if (w === undefined) {
      const node = this.graph.byId.get(nodeId)!;
      w = node.type === "assigner" || !!describeNode(node, this.types).def?.container;
      this.writerCache.set(nodeId, w);
    }
    return w;
  }

  private computeBlocking(nodeId: string): boolean {
    const node = this.graph.byId.get(nodeId)!;
    // Assigners count as blocking: the answer after one should not start before the write lands.
    if (node.type === "answer" || node.type === "assigner") return true;
    const desc = describeNode(node, this.types);
    if (desc.def?.container) return true;
    return !(desc.ports.length === 1 && desc.ports[0] === "source");
  }

  private active(s: Session): boolean {
    const v = this.view!;
    if (v.status(s.node.id) === "skipped") return false;
    const reached = new Set([this.start]);
    const stack = [this.start];
    while (stack.length) {
      const u = stack.pop()!;
      for (const e of this.graph.out.get(u) ?? []) {
        const st = v.edgeState(e);
        if (st === "skipped" || reached.has(e.target)) continue;
        if (st === "taken" || !this.blocking(u)) {
          reached.add(e.target);
          stack.push(e.target);
        }
      }
    }
    return reached.has(s.node.id);
  }

  private buffered?: { node: string; text: string };

  /** Segments that are ready together go out as one chunk (flushed when the session has to wait). */
  private out(s: Session, text: string): void {
    if (!text) return;
    if (this.buffered && this.buffered.node !== s.node.id) this.flush();
    this.buffered ??= { node: s.node.id, text: "" };
    this.buffered.text += text;
  }

  private flush(): void {
    const b = this.buffered;
    this.buffered = undefined;
    if (!b?.text) return;
    this.transcript += b.text;
    this.emit(b.node, b.text, [b.node, "answer"]);
  }

  /** Whether a variable segment can be emitted now: its node is resolved, or nothing upstream can still write it. */
  private ready(s: Session, sel: string[]): "wait" | "emit" | "skip" {
    const v = this.view!;
    const head = sel[0]!;
    if (this.topIds.has(head)) {
      const st = v.status(head);
      if (st === "skipped") return "skip";
      return st === "done" ? "emit" : "wait";
    }
    // Conversation and loop values change under assigners (and containers holding them) upstream.
    for (const a of s.ancestors) {
      if (this.writer(a) && !["done", "skipped"].includes(v.status(a))) return "wait";
    }
    return "emit";
  }

  private unfinished(x: Session): boolean {
    return x.pos < x.segments.length && this.view!.status(x.node.id) !== "skipped";
  }

  /** The session holding the stream: one that has started, else the first active one in graph order. */
  private current(): Session | undefined {
    return (
      this.sessions.find((x) => x.started && this.unfinished(x)) ??
      this.sessions.find((x) => this.unfinished(x) && this.active(x))
    );
  }

  /** Emit everything that can be emitted now. */
  pump(): void {
    if (!this.view) return;
    try {
      this.drain();
    } finally {
      this.flush();
    }
  }

  private drain(): void {
    while (true) {
      const s = this.current();
      if (!s) return;
      s.started = true;
      const seg = s.segments[s.pos]!;
      if (seg.kind === "text") {
        this.out(s, seg.text);
        s.pos++;
        continue;
      }
      const r = this.ready(s, seg.selector);
      if (r === "wait") return;
      if (r === "emit" && !s.streaming) {
        const val = this.view!.read(seg.selector);
        this.out(s, val.found ? valueToMarkdown(val.value) : seg.selector.join("."));
      }
      s.streaming = false;
      s.pos++;
    }
  }

  /** A node streamed text for `selector`; forward it if the active session is waiting on exactly that. */
  chunk(nodeId: string, text: string, selector?: string[]): void {
    if (!this.view || !selector || selector[0] !== nodeId || selector[1] !== "text" || selector.length !== 2) return;
    this.pump();
    const s = this.current();
    const seg = s?.segments[s.pos];
    if (
      !s ||
      seg?.kind !== "var" ||
      seg.selector.length !== 2 ||
      seg.selector[0] !== nodeId ||
      seg.selector[1] !== "text"
    )
      return;
    s.started = true;
    s.streaming = true;
    this.transcript += text;
    this.emit(s.node.id, text, seg.selector);
  }

  /** An answer inside a container body went out whole when it ran: it joins the reply in place. */
  direct(nodeId: string, text: string, selector?: string[]): void {
    this.flush();
    if (!text) return;
    this.transcript += text;
    this.emit(nodeId, text, selector);
  }
}
