import { formatSelector } from "../ir/selector.js";
import { SYSTEM_VARIABLES, systemVariable } from "../ir/system.js";
import { normaliseType, type ValueType } from "../ir/types.js";
import type { OutputDecl } from "../ir/workflow.js";
import { type AnalysisGraph, insideContainer, ROOT } from "./graph.js";

export type Resolution =
  | {
      ok: true;
      type: ValueType;
      /** The node whose run must precede the reader (availability); absent for globals and scope values. */
      producer?: number;
    }
  | { ok: false; code: "ref.missing_node" | "ref.missing_output" | "ref.out_of_scope"; message: string };

/** Per-workflow lookups that resolution needs, built once. */
export class Resolver {
  private readonly env = new Map<string, ValueType>();
  private readonly conv = new Map<string, ValueType>();
  private readonly scopeOutputs = new Map<number, OutputDecl[]>();

  constructor(private readonly g: AnalysisGraph) {
    for (const v of arr(g.workflow.environment_variables))
      if (v && typeof v.name === "string") this.env.set(v.name, normaliseType(v.value_type));
    for (const v of arr(g.workflow.conversation_variables))
      if (v && typeof v.name === "string") this.conv.set(v.name, normaliseType(v.value_type));
  }

  /** Resolve a selector as read by node `reader`. */
  resolve(reader: number, selector: readonly string[]): Resolution {
    const g = this.g;
    const head = selector[0];
    const name = selector[1];
    const shown = this.show(selector);
    if (head === undefined || head === "") return { ok: false, code: "ref.missing_node", message: "empty selector" };
    if (head === "sys" || head === "env" || head === "conversation" || head === "rag") {
      return this.resolveReserved(head, name, selector.length > 2);
    }
    const t = g.byId.get(head);
    if (t === undefined) return { ok: false, code: "ref.missing_node", message: `${shown}: no node "${head}"` };
    const target = g.nodes[t]!;
    if (name === undefined)
      return { ok: false, code: "ref.missing_output", message: `${shown}: the selector names no output` };

    // Inside a container (or the container itself) its scope values (item, index, loop variables) are visible.
    if (t === reader || insideContainer(g, reader, t)) {
      if (target.def?.container || target.def?.scopeOutputs) {
        const scoped = this.scopeOf(t);
        const own = t === reader ? target.desc.outputs : [];
        const hit = lookup([...scoped, ...own], selector);
        if (hit) return { ok: true, type: hit };
        if (!target.desc.known) return { ok: true, type: "any" };
        const avail = scoped.map((o) => o.name).join(", ") || "none";
        const after = lookup(target.desc.outputs, selector)
          ? " (that output exists only after the container finishes)"
          : "";
        return {
          ok: false,
          code: "ref.missing_output",
          message: `${shown}: container ${this.named(t)} gives its body ${avail}, not "${name}"${after}`,
        };
      }
      if (t === reader) {
        const hit = lookup(target.desc.outputs, selector);
        return { ok: true, type: hit ?? "any", producer: t };
      }
    }
    // A container reads its own body's results (iteration output_selector) after the body ran.
    const readerNode = g.nodes[reader]!;
    if (insideContainer(g, t, reader)) {
      if (!readerNode.def?.container) {
        return {
          ok: false,
          code: "ref.out_of_scope",
          message: `${shown}: ${this.named(t)} is inside container ${this.named(reader)}`,
        };
      }
      return this.output(t, selector, undefined);
    }
    // Otherwise the target must live in the reader's scope or an enclosing one.
    if (target.scope !== ROOT && target.scope !== readerNode.scope && !insideContainer(g, reader, target.scope)) {
      return {
        ok: false,
        code: "ref.out_of_scope",
        message: `${shown}: ${this.named(t)} is inside container ${this.named(target.scope)} and cannot be read from outside it; read the container's outputs`,
      };
    }
    return this.output(t, selector, t);
  }

  /** The declared type of a selector as `reader` sees it (StaticContext.typeOf). */
  typeOf(reader: number, selector: readonly string[]): ValueType | undefined {
    const r = this.resolve(reader, selector);
    return r.ok ? r.type : undefined;
  }

  private output(t: number, selector: readonly string[], producer: number | undefined): Resolution {
    const target = this.g.nodes[t]!;
    if (!target.desc.known) return { ok: true, type: "any", producer };
    const hit = lookup(target.desc.outputs, selector);
    if (hit) return { ok: true, type: hit, producer };
    const names = target.desc.outputs.map((o) => o.name).filter((n) => !n.startsWith("sys."));
    return {
      ok: false,
      code: "ref.missing_output",
      message: `${this.show(selector)}: ${target.node.type} node ${this.named(t)} has no output "${selector[1]}" (outputs: ${names.join(", ") || "none"})`,
    };
  }

  /** A node as a reader knows it: its title (ids are opaque numbers in Dify files), the id only when untitled. */
  private named(t: number): string {
    const n = this.g.nodes[t]!;
    return `"${n.node.title || n.id}"`;
  }

  /** A selector with its node shown by title, as the studio's variable picker shows it. */
  private show(selector: readonly string[]): string {
    const t = selector[0] === undefined ? undefined : this.g.byId.get(selector[0]);
    const title = t === undefined ? "" : this.g.nodes[t]!.node.title;
    return title ? formatSelector([title, ...selector.slice(1)]) : formatSelector(selector);
  }

  private scopeOf(t: number): OutputDecl[] {
    let s = this.scopeOutputs.get(t);
    if (!s) {
      const n = this.g.nodes[t]!;
      s = [];
      if (n.def?.scopeOutputs && n.desc.config) {
        try {
          s = n.def.scopeOutputs(n.desc.config, n.node);
        } catch {
          s = [];
        }
      }
      this.scopeOutputs.set(t, s);
    }
    return s;
  }

  private resolveReserved(head: string, name: string | undefined, deeper: boolean): Resolution {
    const mode = this.g.mode;
    const miss = (message: string): Resolution => ({ ok: false, code: "ref.missing_output", message });
    if (name === undefined) return miss(`${head}: the selector names no variable`);
    const t = (type: ValueType): Resolution => ({ ok: true, type: deeper ? "any" : type });
    if (head === "sys") {
      const v = systemVariable(name, mode);
      if (v) return t(v.type);
      const other = SYSTEM_VARIABLES.find((s) => s.name === name);
      return miss(
        other
          ? `sys.${name} exists only in ${other.modes.join(", ")} apps, not ${mode}`
          : `sys.${name} is not a system variable (known: ${SYSTEM_VARIABLES.filter((s) => s.modes.includes(mode))
              .map((s) => s.name)
              .join(", ")})`,
      );
    }
    if (head === "env") {
      const v = this.env.get(name);
      return v ? t(v) : miss(`env.${name}: no environment variable "${name}"`);
    }
    if (head === "conversation") {
      if (mode !== "advanced-chat")
        return miss(`conversation.${name}: conversation variables exist only in advanced-chat apps`);
      const v = this.conv.get(name);
      return v ? t(v) : miss(`conversation.${name}: no conversation variable "${name}"`);
    }
    return miss(`rag.${name}: rag variables exist only in RAG pipelines`);
  }
}

/**
 * Type of `[node, name, ...path]` among declared outputs; deeper paths are `any`. Dotted output names
 * (the start node's `sys.query` re-export) match two segments, as template refs split them.
 */
function lookup(outputs: readonly OutputDecl[], selector: readonly string[]): ValueType | undefined {
  const name = selector[1];
  const one = outputs.find((o) => o.name === name);
  if (one) return selector.length > 2 ? "any" : one.type;
  if (selector.length >= 3) {
    const two = outputs.find((o) => o.name === `${name}.${selector[2]}`);
    if (two) return selector.length > 3 ? "any" : two.type;
  }
  return undefined;
}

function arr<T>(x: T[] | undefined): T[] {
  return Array.isArray(x) ? x : [];
}
