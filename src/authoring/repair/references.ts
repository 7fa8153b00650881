import { shorthandFor } from "../../dsl/compact/shorthand.js";
import { isReservedHead } from "../../ir/selector.js";
import { own } from "../../util/own.js";
import { type CNode, type Compact, compactOutputs, isObj, parentOf, TEXT_REF } from "./compact-graph.js";
import type { RepairRecord } from "./types.js";

/** Text params (with {{#…#}} references) of each compact type. */
const TEXT_FIELDS: Record<string, string[]> = {
  llm: ["system", "user"],
  "parameter-extractor": ["instruction"],
  "question-classifier": ["instruction"],
  tts: ["text"],
  text2image: ["prompt"],
  "markdown-exporter": ["md_text"],
  "mermaid-converter": ["mermaid_code"],
  "google-search": ["query"],
  echarts: ["chart_title", "data", "x_axisORcategories"],
};

/**
 * Fix references whose target is unambiguous: a `[node_id, var]` tuple written in Dify order is
 * swapped to the compact `[var, node_id]` order, and a reference to a missing node id is retargeted
 * when exactly one other node publishes that variable. Anything ambiguous is left for the analyser.
 */
export function repairReferences(c: Compact): { compact: Compact; repairs: RepairRecord[] } {
  const repair = new ReferenceRepair(c);
  const nodes_info = c.nodes_info.map((n) => repair.node(n));
  return { compact: { ...c, nodes_info }, repairs: repair.repairs };
}

/** Params that hold no references however they look: code outputs, extractor parameters, classes, code, templates. */
const notReferences = (type: string, k: string) =>
  (type === "code" && k === "outputs") ||
  (type === "parameter-extractor" && k === "parameters") ||
  k === "classes" ||
  k === "code" ||
  k === "template";

/** A `[var, node_id]`-shaped pair as the model writes one, before its node id is known to exist. */
const looksLikeTuple = (v: unknown[]): boolean =>
  v.length === 2 &&
  typeof v[0] === "string" &&
  (typeof v[1] === "string" || typeof v[1] === "number") &&
  /^[\w.]+$/.test(v[0]) &&
  /^[\w-]+$/.test(String(v[1]));

/** The repairs of one compact graph: what its nodes publish, and each repair made, in order. */
class ReferenceRepair {
  readonly repairs: RepairRecord[] = [];
  private readonly ids: Set<string>;
  private readonly byId: Map<string, CNode>;

  constructor(private readonly c: Compact) {
    this.ids = new Set(c.nodes_info.map((n) => n.id));
    this.byId = new Map(c.nodes_info.map((n) => [n.id, n]));
  }

  node(n: CNode): CNode {
    // Start variables are [name, type] pairs, not references; code/parameter outputs likewise. A Dify-form
    // param (or a type without a shorthand) writes selectors in Dify order, [node_id, variable]: not a swap.
    if (n.type === "start" || !shorthandFor(n.type) || Object.hasOwn(n.param, "dify")) return n;
    const param = { ...n.param };
    this.textTuples(n, param);
    if (n.type === "variable-aggregator" && Array.isArray(param.variables))
      param.variables = param.variables.map((v, i) => this.aggregatorInput(n, v, i));
    for (const [k, v] of Object.entries(param)) {
      if (!notReferences(n.type, k)) param[k] = this.walk(v, n.id, k);
    }
    return { ...n, param };
  }

  private note(detail: string): void {
    this.repairs.push({ kind: "reference", detail });
  }

  /** A `[var, id]` pair whose id is a node of the graph. */
  private isTuple(v: unknown): v is [string, string | number] {
    return (
      Array.isArray(v) &&
      v.length === 2 &&
      typeof v[0] === "string" &&
      (typeof v[1] === "string" || typeof v[1] === "number") &&
      this.ids.has(String(v[1]))
    );
  }

  /** Nodes other than `self` that publish `name` (an iteration's `item`/`index` only to its own children). */
  private publishers(name: string, self: string): CNode[] {
    return this.c.nodes_info.filter(
      (n) =>
        n.id !== self &&
        compactOutputs(n).includes(name) &&
        (!["item", "index"].includes(name) || parentOf(self) === n.id),
    );
  }

  /** A text field written as a [var, id] tuple means the text {{#'id'.var#}}. */
  private textTuples(n: CNode, param: Record<string, unknown>): void {
    for (const k of own(TEXT_FIELDS, n.type) ?? []) {
      const v = param[k];
      if (!this.isTuple(v)) continue;
      param[k] = `{{#'${v[1]}'.${v[0]}#}}`;
      this.note(
        `${n.id}.${k}: the text field held the reference ${JSON.stringify(v)}; wrote it as {{#'${v[1]}'.${v[0]}#}}`,
      );
    }
  }

  /**
   * Aggregator inputs are plain [var, id]: the [name, [var, id]] binding form is unwrapped, and a bare node id
   * completed when that node publishes exactly one value.
   */
  private aggregatorInput(n: CNode, v: unknown, i: number): unknown {
    if (Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && this.isTuple(v[1])) {
      this.note(`${n.id}.variables[${i}]: unwrapped the binding ${JSON.stringify(v)} to ${JSON.stringify(v[1])}`);
      return v[1];
    }
    const target = typeof v === "string" || typeof v === "number" ? this.byId.get(String(v)) : undefined;
    const outs = target ? compactOutputs(target) : [];
    if (!target || outs.length !== 1) return v;
    this.note(
      `${n.id}.variables[${i}]: the bare node id ${JSON.stringify(v)} became [${outs[0]}, ${target.id}] (its only output)`,
    );
    return [outs[0], target.id];
  }

  /** Every reference in a param value: text references in strings, tuples in arrays, fields of objects. */
  private walk(v: unknown, self: string, field: string): unknown {
    if (typeof v === "string") return this.fixText(v, self, field);
    if (Array.isArray(v)) {
      if (looksLikeTuple(v)) return this.fixTuple(v, self, field);
      return v.map((x, i) => this.walk(x, self, `${field}[${i}]`));
    }
    if (isObj(v))
      return Object.fromEntries(
        Object.entries(v).map(([k, x]) => [k, this.walk(x, self, field ? `${field}.${k}` : k)]),
      );
    return v;
  }

  /** A {{#'id'.var#}} naming a missing node goes to the only node publishing `var`. */
  private fixText(v: string, self: string, field: string): string {
    return v.replace(TEXT_REF, (raw, _q, id: string, rest: string) => {
      const key = id.trim();
      if (this.ids.has(key) || isReservedHead(key)) return raw;
      const cands = this.publishers(rest.split(".")[0]!, self);
      if (cands.length !== 1) return raw;
      this.note(
        `${self}.${field}: ${raw} names a missing node; the only node publishing "${rest.split(".")[0]}" is ${cands[0]!.id}`,
      );
      return `{{#'${cands[0]!.id}'.${rest}#}}`;
    });
  }

  /** A tuple in Dify order is swapped; one naming a missing node goes to the only node publishing its variable. */
  private fixTuple(v: unknown[], self: string, field: string): unknown[] {
    const [a, b] = v as [string, string | number];
    const target = String(b);
    if (this.ids.has(target) || isReservedHead(target)) return v;
    if (this.ids.has(a) && !this.ids.has(target) && typeof b === "string") {
      this.note(`${self}.${field}: swapped [${a}, ${b}] to [${b}, ${a}] (name first, then node id)`);
      return [b, a];
    }
    const name = a.split(".")[0]!;
    const cands = this.publishers(name, self);
    if (cands.length !== 1) return v;
    this.note(
      `${self}.${field}: node "${target}" does not exist; the only node publishing "${name}" is ${cands[0]!.id}`,
    );
    return [a, cands[0]!.id];
  }
}
