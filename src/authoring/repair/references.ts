import { shorthandFor } from "../../dsl/compact/shorthand.js";
import { isReservedHead } from "../../ir/selector.js";
import { own } from "../../util/own.js";
import { type Compact, compactOutputs, isObj, parentOf, TEXT_REF } from "./compact-graph.js";
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
  const repairs: RepairRecord[] = [];
  const ids = new Set(c.nodes_info.map((n) => n.id));
  const publishers = (name: string, self: string) =>
    c.nodes_info.filter(
      (n) =>
        n.id !== self &&
        compactOutputs(n).includes(name) &&
        (!["item", "index"].includes(name) || parentOf(self) === n.id),
    );

  const fixTuple = (v: unknown[], self: string, field: string): unknown[] => {
    const [a, b] = v as [string, string | number];
    const target = String(b);
    if (ids.has(target) || isReservedHead(target)) return v;
    if (ids.has(a) && !ids.has(target) && typeof b === "string") {
      repairs.push({
        kind: "reference",
        detail: `${self}.${field}: swapped [${a}, ${b}] to [${b}, ${a}] (name first, then node id)`,
      });
      return [b, a];
    }
    const name = a.split(".")[0]!;
    const cands = publishers(name, self);
    if (cands.length === 1) {
      repairs.push({
        kind: "reference",
        detail: `${self}.${field}: node "${target}" does not exist; the only node publishing "${name}" is ${cands[0]!.id}`,
      });
      return [a, cands[0]!.id];
    }
    return v;
  };

  const walk = (v: unknown, self: string, field: string): unknown => {
    if (typeof v === "string") {
      return v.replace(TEXT_REF, (raw, _q, id: string, rest: string) => {
        const key = id.trim();
        if (ids.has(key) || isReservedHead(key)) return raw;
        const cands = publishers(rest.split(".")[0]!, self);
        if (cands.length !== 1) return raw;
        repairs.push({
          kind: "reference",
          detail: `${self}.${field}: ${raw} names a missing node; the only node publishing "${rest.split(".")[0]}" is ${cands[0]!.id}`,
        });
        return `{{#'${cands[0]!.id}'.${rest}#}}`;
      });
    }
    if (Array.isArray(v)) {
      if (
        v.length === 2 &&
        typeof v[0] === "string" &&
        (typeof v[1] === "string" || typeof v[1] === "number") &&
        /^[\w.]+$/.test(v[0]) &&
        /^[\w-]+$/.test(String(v[1]))
      ) {
        return fixTuple(v, self, field);
      }
      return v.map((x, i) => walk(x, self, `${field}[${i}]`));
    }
    if (isObj(v))
      return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, walk(x, self, field ? `${field}.${k}` : k)]));
    return v;
  };

  const isTuple = (v: unknown): v is [string, string | number] =>
    Array.isArray(v) &&
    v.length === 2 &&
    typeof v[0] === "string" &&
    (typeof v[1] === "string" || typeof v[1] === "number") &&
    ids.has(String(v[1]));
  const byId = new Map(c.nodes_info.map((n) => [n.id, n]));

  const nodes_info = c.nodes_info.map((n) => {
    // Start variables are [name, type] pairs, not references; code/parameter outputs likewise. A Dify-form
    // param (or a type without a shorthand) writes selectors in Dify order, [node_id, variable]: not a swap.
    if (n.type === "start" || !shorthandFor(n.type) || Object.hasOwn(n.param, "dify")) return n;
    const param = { ...n.param };
    // A text field written as a [var, id] tuple means the text {{#'id'.var#}}.
    for (const k of own(TEXT_FIELDS, n.type) ?? []) {
      const v = param[k];
      if (isTuple(v)) {
        param[k] = `{{#'${v[1]}'.${v[0]}#}}`;
        repairs.push({
          kind: "reference",
          detail: `${n.id}.${k}: the text field held the reference ${JSON.stringify(v)}; wrote it as {{#'${v[1]}'.${v[0]}#}}`,
        });
      }
    }
    // Aggregator inputs are plain [var, id]: unwrap the [name, [var, id]] binding form, and complete a
    // bare node id when that node publishes exactly one value.
    if (n.type === "variable-aggregator" && Array.isArray(param.variables)) {
      param.variables = param.variables.map((v, i) => {
        if (Array.isArray(v) && v.length === 2 && typeof v[0] === "string" && isTuple(v[1])) {
          repairs.push({
            kind: "reference",
            detail: `${n.id}.variables[${i}]: unwrapped the binding ${JSON.stringify(v)} to ${JSON.stringify(v[1])}`,
          });
          return v[1];
        }
        const target = typeof v === "string" || typeof v === "number" ? byId.get(String(v)) : undefined;
        const outs = target ? compactOutputs(target) : [];
        if (target && outs.length === 1) {
          repairs.push({
            kind: "reference",
            detail: `${n.id}.variables[${i}]: the bare node id ${JSON.stringify(v)} became [${outs[0]}, ${target.id}] (its only output)`,
          });
          return [outs[0], target.id];
        }
        return v;
      });
    }
    for (const [k, v] of Object.entries(param)) {
      if (
        (n.type === "code" && k === "outputs") ||
        (n.type === "parameter-extractor" && k === "parameters") ||
        k === "classes" ||
        k === "code" ||
        k === "template"
      )
        continue;
      param[k] = walk(v, n.id, k);
    }
    return { ...n, param };
  });
  return { compact: { ...c, nodes_info }, repairs };
}
