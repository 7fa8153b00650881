import { describeNode } from "../../ir/describe.js";
import { replaceTemplateRefs } from "../../ir/selector.js";
import type { Workflow, WorkflowNode } from "../../ir/workflow.js";
import "../../nodes/index.js";
import { TOOL_ALIASES } from "./vocabulary.js";

type Json = Record<string, any>;

export interface CompactWorkflow {
  nodes_info: Array<{ id: string; type: string; param: Json }>;
  edges: Array<[string, number, string]>;
}

const START_BACK: Record<string, string> = {
  paragraph: "string",
  "text-input": "string",
  select: "string",
  number: "number",
  checkbox: "boolean",
  file: "file",
  "file-list": "array[file]",
  json_object: "object",
};

/** Topological order of one scope (top level or a container body), stable by original position. */
function scopeOrder(wf: Workflow, scope: string | undefined): WorkflowNode[] {
  const nodes = wf.nodes.filter((n) => n.parentId === scope);
  const ids = new Set(nodes.map((n) => n.id));
  const indeg = new Map(nodes.map((n) => [n.id, 0]));
  for (const e of wf.edges) if (ids.has(e.source) && ids.has(e.target)) indeg.set(e.target, (indeg.get(e.target) ?? 0) + 1);
  const out: WorkflowNode[] = [];
  const ready = nodes.filter((n) => indeg.get(n.id) === 0);
  const seen = new Set<string>();
  while (ready.length) {
    const n = ready.shift()!;
    if (seen.has(n.id)) continue;
    seen.add(n.id);
    out.push(n);
    for (const e of wf.edges) {
      if (e.source !== n.id || !ids.has(e.target)) continue;
      const d = (indeg.get(e.target) ?? 1) - 1;
      indeg.set(e.target, d);
      if (d === 0) ready.push(nodes.find((x) => x.id === e.target)!);
    }
  }
  // Nodes on a cycle keep their file order at the end; the analyser reports the cycle.
  return [...out, ...nodes.filter((n) => !seen.has(n.id))];
}

/**
 * IR → the compact JSON generation models read and write, so a later chat turn can see (and edit)
 * the current workflow in the same vocabulary it answers in.
 */
export function workflowToCompact(wf: Workflow): CompactWorkflow {
  const cid = new Map<string, string>();
  const ordered: WorkflowNode[] = [];
  let top = 0;
  for (const n of scopeOrder(wf, undefined)) {
    const id = String(++top);
    cid.set(n.id, id);
    ordered.push(n);
    if (n.type === "iteration" || n.type === "loop") {
      let k = 0;
      for (const child of scopeOrder(wf, n.id)) {
        cid.set(child.id, `${id}-${++k}`);
        ordered.push(child);
      }
    }
  }
  const ref = (sel: unknown): [string, string] | unknown => {
    if (!Array.isArray(sel) || sel.length < 2) return sel;
    const [head, ...rest] = sel.map(String);
    return [rest.join("."), cid.get(head!) ?? head!];
  };
  const text = (t: unknown) =>
    typeof t === "string" ? replaceTemplateRefs(t, (sel) => `{{#'${cid.get(sel[0]!) ?? sel[0]}'.${sel.slice(1).join(".")}#}}`) : t;
  const bindings = (list: Json[] | undefined) => (list ?? []).map((b) => [b.variable, ref(b.value_selector)]);

  const nodes_info = ordered.map((n) => {
    const c = (describeNode(n).config ?? n.config) as Json;
    const id = cid.get(n.id)!;
    let type = n.type;
    let param: Json;
    switch (n.type) {
      case "start":
        param = { variables: (c.variables ?? []).map((v: Json) => [v.variable, START_BACK[v.type] ?? "string"]) };
        break;
      case "end":
        param = { outputs: (c.outputs ?? []).map((o: Json) => [o.variable, ref(o.value_selector)]) };
        break;
      case "answer":
        param = { answer: text(c.answer) };
        break;
      case "llm": {
        const msgs: Json[] = Array.isArray(c.prompt_template) ? c.prompt_template : [c.prompt_template ?? {}];
        param = {
          system: text(msgs.filter((m) => m.role === "system").map((m) => m.text ?? "").join("\n")),
          user: text(msgs.filter((m) => m.role !== "system").map((m) => m.text ?? "").join("\n")),
        };
        break;
      }
      case "question-classifier":
        param = { query_variable_selector: ref(c.query_variable_selector), classes: (c.classes ?? []).map((k: Json) => k.name), instruction: text(c.instruction ?? "") };
        break;
      case "code":
        param = {
          variables: bindings(c.variables),
          outputs: Object.entries(c.outputs ?? {}).map(([k, v]) => [k, (v as Json)?.type ?? "string"]),
          code: c.code,
        };
        break;
      case "document-extractor":
        param = { variable_selector: ref(c.variable_selector) };
        break;
      case "http-request":
        param = { url: c.url };
        break;
      case "if-else":
        param = {
          cases: (c.cases ?? []).map((k: Json) => [
            k.logical_operator ?? "and",
            (k.conditions ?? []).map((cond: Json) => [ref(cond.variable_selector), cond.comparison_operator, ...(cond.value !== undefined ? [text(cond.value)] : [])]),
          ]),
        };
        break;
      case "parameter-extractor":
        param = { query: ref(c.query), parameters: (c.parameters ?? []).map((p: Json) => [p.description ?? "", p.name, p.type]), instruction: text(c.instruction ?? "") };
        break;
      case "template-transform":
        param = { variables: bindings(c.variables), template: c.template };
        break;
      case "variable-aggregator":
        param = { variables: (c.variables ?? []).map(ref) };
        break;
      case "iteration":
        param = { iterator_selector: ref(c.iterator_selector), output_selector: ref(c.output_selector) };
        break;
      case "iteration-start":
        param = {};
        break;
      case "tool": {
        const alias = typeof c.compact_type === "string" && TOOL_ALIASES[c.compact_type] ? c.compact_type : undefined;
        const params = Object.fromEntries(Object.entries(c.tool_parameters ?? {}).map(([k, v]) => [k, text((v as Json)?.value)]));
        if (alias === "echarts") {
          type = alias;
          param = { chart_type: String(c.tool_name).replace(/_chart$/, ""), chart_title: params.title, data: params.data, x_axisORcategories: params.x_axis ?? params.categories };
        } else if (alias === "markdown-exporter") {
          type = alias;
          param = { target_type: String(c.tool_name).replace(/^md_to_/, ""), md_text: params.md_text };
        } else if (alias) {
          type = alias;
          param = params;
        } else {
          param = { provider_id: c.provider_id, tool_name: c.tool_name, parameters: params };
        }
        break;
      }
      default:
        param = { ...c };
    }
    return { id, type, param };
  });

  const edges: Array<[string, number, string]> = wf.edges
    .filter((e) => cid.has(e.source) && cid.has(e.target))
    .map((e) => {
      const ports = describeNode(wf.nodes.find((n) => n.id === e.source)!).ports;
      const idx = ports.length === 1 && ports[0] === "source" ? 0 : Math.max(0, ports.indexOf(e.sourcePort));
      return [cid.get(e.source)!, idx, cid.get(e.target)!];
    });
  return { nodes_info, edges };
}
