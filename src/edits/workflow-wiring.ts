/**
 * How edits keep a Weft workflow runnable: a new node gets a model and its inputs, readers of a node's
 * output are pointed at it, and references to a removed node are dropped. Selectors and `{{#…#}}`
 * references are the workflow form's; the compact form leaves this to its reader.
 */
import { describeNode } from "../ir/describe.js";
import type { NodeTypes } from "../ir/registry.js";
import { replaceTemplateRefs } from "../ir/selector.js";
import type { WorkflowNode } from "../ir/workflow.js";
import type { EditGraph, EditNode, Wiring } from "./graph.js";

const PREFERRED_OUTPUT: Record<string, string> = {
  "tool-call": "result",
  llm: "text",
  "variable-aggregator": "output",
  loop: "last",
  "template-transform": "output",
  tool: "text",
};

/** The output a node's readers read. */
export function mainOutput(n: EditNode, types: NodeTypes): string | undefined {
  const p = PREFERRED_OUTPUT[n.type];
  // A copy: describeNode caches per node object, and edits mutate drafts in place.
  const outs = describeNode({ ...n, title: n.title ?? "" } as WorkflowNode, types).outputs.map((o) => o.name);
  if (p && outs.includes(p)) return p;
  return outs.find((o) => !o.startsWith("sys."));
}

const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** Make `target` read `sel`: tool-call context, llm user prompt, aggregator alternatives. */
function publishTo(target: EditNode, sel: string[], variable: string): void {
  const c = target.config as Record<string, any>;
  if (target.type === "tool-call") {
    const ctx = Array.isArray(c.context) ? c.context : [];
    if (!ctx.some((b: any) => same(b?.value_selector, sel))) ctx.push({ variable, value_selector: sel });
    c.context = ctx;
  } else if (target.type === "llm" && Array.isArray(c.prompt_template)) {
    const ref = `{{#${sel.join(".")}#}}`;
    const msgs = c.prompt_template as Array<{ role?: string; text?: string }>;
    if (msgs.some((m) => (m.text ?? "").includes(ref))) return;
    const user = [...msgs].reverse().find((m) => m.role === "user");
    if (user) user.text = `${user.text ?? ""}\n\n### ${variable}\n${ref}`;
    else msgs.push({ role: "user", text: `### ${variable}\n${ref}` });
  } else if (target.type === "variable-aggregator") {
    const vars = Array.isArray(c.variables) ? c.variables : [];
    if (!vars.some((v: unknown) => same(v, sel))) vars.push(sel);
    c.variables = vars;
  }
}

function provider(g: EditGraph): string | undefined {
  const tc = g.nodes.find((n) => n.type === "tool-call");
  const p = tc ? (tc.config as any).provider_id : undefined;
  return typeof p === "string" ? p : undefined;
}

function toolCallContext(
  g: EditGraph,
  types: NodeTypes,
  readFrom?: EditNode,
): Array<{ variable: string; value_selector: string[] }> {
  const ctx: Array<{ variable: string; value_selector: string[] }> = [];
  const start = g.nodes.find((n) => n.type === "start");
  const firstVar = start ? (start.config as any).variables?.[0]?.variable : undefined;
  if (start && firstVar) ctx.push({ variable: "task", value_selector: [start.id, firstVar] });
  if (readFrom && readFrom.type !== "start") {
    const out = mainOutput(readFrom, types);
    if (out) ctx.push({ variable: `${readFrom.id}_${out}`, value_selector: [readFrom.id, out] });
  }
  return ctx;
}

/** A title, and for LLM/tool-call nodes that do not name one the workflow's first model. */
function fillDefaults(g: EditGraph, types: NodeTypes, node: EditNode, readFrom?: EditNode): void {
  if (node.title === undefined) node.title = node.id;
  const c = node.config as Record<string, any>;
  if ((node.type === "llm" || node.type === "tool-call") && !c.model?.name) {
    const donor = g.nodes.find((n) => (n.type === "llm" || n.type === "tool-call") && (n.config as any).model?.name);
    if (donor) c.model = structuredClone((donor.config as any).model);
  }
  if (node.type === "tool-call") {
    if (!Array.isArray(c.context) || c.context.length === 0) c.context = toolCallContext(g, types, readFrom);
    if (provider(g) !== undefined && c.provider_id === undefined) c.provider_id = provider(g);
  }
  if (node.type === "llm" && !Array.isArray(c.prompt_template)) c.prompt_template = [{ role: "user", text: "" }];
}

/** Rewrites selector arrays and `{{#…#}}` references in every config (except inside `skip`); null drops one. */
export function rewriteRefs(
  g: EditGraph,
  fn: (sel: string[]) => string[] | null,
  skip: ReadonlySet<string> = new Set(),
): void {
  const walk = (v: unknown): unknown => {
    if (typeof v === "string")
      return replaceTemplateRefs(v, (sel, raw) => {
        const r = fn(sel);
        return r === null ? "" : r === sel ? raw : `{{#${r.join(".")}#}}`;
      });
    if (Array.isArray(v)) {
      if (v.length >= 2 && v.every((x) => typeof x === "string")) return fn(v as string[]) ?? [];
      return v.map(walk);
    }
    if (v && typeof v === "object") {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) o[k] = walk(x);
      return o;
    }
    return v;
  };
  for (const n of g.nodes) if (!skip.has(n.id)) n.config = walk(n.config) as Record<string, unknown>;
}

/** Drop bindings that point at a removed node (context entries, aggregator alternatives), then references. */
function scrubBindings(g: EditGraph, removed: ReadonlySet<string>): void {
  const keep = (sel: unknown) => Array.isArray(sel) && sel.length > 0 && !removed.has(sel[0]);
  for (const n of g.nodes) {
    const c = n.config as Record<string, any>;
    if (Array.isArray(c.context)) c.context = c.context.filter((b: any) => !removed.has(b?.value_selector?.[0]));
    if (n.type === "variable-aggregator" && Array.isArray(c.variables))
      c.variables = c.variables.filter((s: any) => !removed.has(s?.[0]));
  }
  rewriteRefs(g, (sel) => (removed.has(sel[0]!) ? null : sel));
  // Empty selector lists left by the rewrite (e.g. a binding inside an unknown field) are dropped.
  for (const n of g.nodes) {
    const c = n.config as Record<string, any>;
    if (Array.isArray(c.context)) c.context = c.context.filter((b: any) => keep(b?.value_selector));
    if (n.type === "variable-aggregator" && Array.isArray(c.variables)) c.variables = c.variables.filter(keep);
  }
}

/** The wiring of the workflow form, reading node outputs from `types`. */
export function workflowWiring(types: NodeTypes): Wiring {
  return {
    complete: (g, node, readFrom) => fillDefaults(g, types, node, readFrom),
    publish(_g, reader, node) {
      const out = mainOutput(node, types);
      if (out) publishTo(reader, [node.id, out], `${node.id}_${out}`);
    },
    dropReferences: scrubBindings,
  };
}
