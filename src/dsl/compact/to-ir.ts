import type { Diagnostic } from "../../ir/diagnostics.js";
import { describeNode } from "../../ir/describe.js";
import { WorkflowSchema, type AppMode, type Workflow, type WorkflowEdge, type WorkflowNode } from "../../ir/workflow.js";
import "../../nodes/index.js";
import { getNodeType } from "../../ir/registry.js";
import { MAX_JSON_DEPTH, tooDeepAt } from "../../util/json-depth.js";
import { nameOf, own, textOf } from "../../util/own.js";
import { START_TYPES, TOOL_ALIASES } from "./vocabulary.js";

export interface CompactOptions {
  name?: string;
  mode?: AppMode;
  /** Model written into llm nodes (the compact format names none). */
  llmModel?: { provider: string; name: string };
  /** Model for question-classifier and parameter-extractor. */
  structuredModel?: { provider: string; name: string };
}

export interface CompactResult {
  /** Undefined when the answer cannot be converted at all (not an object, no nodes). */
  workflow?: Workflow;
  diagnostics: Diagnostic[];
  /** Compact id → IR id. */
  ids: Map<string, string>;
}

const DEFAULT_MODEL = { provider: "openai", name: "gpt-4o-mini" };

type Json = Record<string, unknown>;
const isObj = (v: unknown): v is Json => !!v && typeof v === "object" && !Array.isArray(v);

/** Dify template ids must be `[A-Za-z0-9_]`; compact ids like "2-1" become "2_1". */
export function irId(compactId: string): string {
  return compactId.replace(/[^A-Za-z0-9_]/g, "_");
}

class Converter {
  readonly diags: Diagnostic[] = [];
  readonly ids = new Map<string, string>();
  readonly types = new Map<string, string>();

  constructor(readonly opts: CompactOptions) {}

  error(code: string, message: string, nodeId?: string, field?: string) {
    this.diags.push({ code, severity: "error", message, nodeId, field });
  }

  /** A tuple reference `[var, nodeId]` (name first) → selector `[irId, var, ...path]`. */
  ref(v: unknown, nodeId: string, field: string): string[] | undefined {
    if (!Array.isArray(v) || v.length !== 2 || typeof v[0] !== "string" || (typeof v[1] !== "string" && typeof v[1] !== "number")) {
      this.error("compact.bad_reference", `${field} must be a [variable, node_id] pair, got ${JSON.stringify(v)}`, nodeId, field);
      return undefined;
    }
    const target = String(v[1]);
    const mapped = this.ids.get(target);
    if (!mapped) {
      this.error("compact.unknown_node_ref", `${field} references node "${target}", which is not defined`, nodeId, field);
      return undefined;
    }
    return [mapped, ...v[0].split(".")];
  }

  /** Rewrite `{{#'2-2'.text#}}`, `{{#"3".x#}}`, `{{#3.x#}}` to IR ids. */
  text(v: unknown, nodeId: string, field: string): string {
    if (v === undefined || v === null) return "";
    if (typeof v !== "string") {
      this.error("compact.bad_text", `${field} must be a string, got ${Array.isArray(v) ? "a list" : typeof v}`, nodeId, field);
      return "";
    }
    return v.replace(/\{\{#\s*(['"]?)([^'".#{}]+)\1\.([A-Za-z0-9_.]+)\s*#\}\}/g, (raw, _q, id: string, rest: string) => {
      if (id === "sys" || id === "env" || id === "conversation") return `{{#${id}.${rest}#}}`;
      const mapped = this.ids.get(id.trim());
      if (!mapped) {
        this.error("compact.unknown_node_ref", `${field} references node "${id}" in ${raw}, which is not defined`, nodeId, field);
        return raw;
      }
      return `{{#${mapped}.${rest}#}}`;
    });
  }

  list(v: unknown, nodeId: string, field: string): unknown[] {
    if (v === undefined || v === null) return [];
    if (!Array.isArray(v)) {
      this.error("compact.bad_param", `${field} must be a list`, nodeId, field);
      return [];
    }
    return v;
  }

  bindings(v: unknown, nodeId: string, field: string) {
    return this.list(v, nodeId, field).flatMap((b, i) => {
      if (!Array.isArray(b) || b.length !== 2 || typeof b[0] !== "string") {
        this.error("compact.bad_param", `${field}[${i}] must be [name, [variable, node_id]]`, nodeId, `${field}[${i}]`);
        return [];
      }
      const sel = this.ref(b[1], nodeId, `${field}[${i}]`);
      return sel ? [{ variable: b[0], value_selector: sel }] : [];
    });
  }
}

function model(m: { provider: string; name: string }) {
  return { provider: m.provider, name: m.name, mode: "chat", completion_params: { temperature: 0.7 } };
}

function nodeConfig(c: Converter, type: string, p: Json, id: string, caseIds: Map<string, string[]>, classIds: Map<string, string[]>): { type: string; config: Json } | undefined {
  const llmModel = c.opts.llmModel ?? DEFAULT_MODEL;
  const structModel = c.opts.structuredModel ?? llmModel;
  switch (type) {
    case "start": {
      const variables = c.list(p.variables, id, "variables").flatMap((v, i) => {
        if (!Array.isArray(v) || typeof v[0] !== "string") {
          c.error("compact.bad_param", `variables[${i}] must be [name, type]`, id, `variables[${i}]`);
          return [];
        }
        const t = v[1] ?? "string";
        const dify = typeof t === "string" ? own(START_TYPES, t) : undefined;
        if (!dify) {
          c.error("compact.bad_start_type", `input "${v[0]}" has type ${textOf(t)}; start inputs can be ${Object.keys(START_TYPES).join(", ")}`, id, `variables[${i}]`);
          return [];
        }
        return [{ variable: v[0], label: v[0], type: dify, required: false, ...(dify === "paragraph" ? { max_length: 32768 } : {}) }];
      });
      return { type, config: { variables } };
    }
    case "end": {
      const outputs = c.list(p.outputs, id, "outputs").flatMap((o, i) => {
        if (!Array.isArray(o) || typeof o[0] !== "string") {
          c.error("compact.bad_param", `outputs[${i}] must be [name, [variable, node_id]]`, id, `outputs[${i}]`);
          return [];
        }
        const sel = c.ref(o[1], id, `outputs[${i}]`);
        return sel ? [{ variable: o[0], value_selector: sel }] : [];
      });
      return { type, config: { outputs } };
    }
    case "answer":
      return { type, config: { answer: c.text(p.answer, id, "answer") } };
    case "llm":
      return {
        type,
        config: {
          model: model(llmModel),
          prompt_template: [
            { role: "system", text: c.text(p.system, id, "system") },
            { role: "user", text: c.text(p.user, id, "user") },
          ],
          context: { enabled: false, variable_selector: [] },
          vision: { enabled: false },
        },
      };
    case "question-classifier": {
      const classes = c.list(p.classes, id, "classes").flatMap((name, i) => {
        const text = nameOf(name);
        if (text === undefined) c.error("compact.bad_param", `classes[${i}] must be a class name, got ${textOf(name)}`, id, `classes[${i}]`);
        return text === undefined ? [] : [{ id: String(i + 1), name: text }];
      });
      classIds.set(id, classes.map((k) => k.id));
      return {
        type,
        config: {
          query_variable_selector: c.ref(p.query_variable_selector, id, "query_variable_selector") ?? [],
          classes,
          instruction: c.text(p.instruction, id, "instruction"),
          model: model(structModel),
        },
      };
    }
    case "code": {
      const outputs = c.list(p.outputs, id, "outputs").flatMap((o, i) => {
        if (!Array.isArray(o) || typeof o[0] !== "string" || (o[1] !== undefined && typeof o[1] !== "string")) {
          c.error("compact.bad_param", `outputs[${i}] must be [name, type], got ${textOf(o)}`, id, `outputs[${i}]`);
          return [];
        }
        return [[o[0], { type: o[1] ?? "string", children: null }] as const];
      });
      // fromEntries defines own keys, so an output a model calls "__proto__" stays an output.
      return { type, config: { variables: c.bindings(p.variables, id, "variables"), code_language: "python3", code: typeof p.code === "string" ? p.code : "", outputs: Object.fromEntries(outputs) } };
    }
    case "document-extractor":
      return { type, config: { variable_selector: c.ref(p.variable_selector, id, "variable_selector") ?? [], is_array_file: false } };
    case "http-request": {
      const sel = c.ref(p.url, id, "url");
      return {
        type,
        config: {
          method: "get",
          url: sel ? `{{#${sel.join(".")}#}}` : "",
          authorization: { type: "no-auth", config: null },
          headers: "",
          params: "",
          body: { type: "none", data: [] },
          timeout: { max_connect_timeout: 0, max_read_timeout: 0, max_write_timeout: 0 },
          retry_config: { retry_enabled: true, max_retries: 3, retry_interval: 100 },
        },
      };
    }
    case "if-else": {
      const cases = c.list(p.cases, id, "cases").flatMap((k, i) => {
        if (!Array.isArray(k) || k.length !== 2 || !Array.isArray(k[1])) {
          c.error("compact.bad_param", `cases[${i}] must be [logical_operator, [conditions...]]`, id, `cases[${i}]`);
          return [];
        }
        const conditions = (k[1] as unknown[]).flatMap((cond, j) => {
          const f = `cases[${i}].conditions[${j}]`;
          if (!Array.isArray(cond) || cond.length < 2) {
            c.error("compact.bad_param", `${f} must be [[variable, node_id], operator, value?]`, id, f);
            return [];
          }
          const sel = c.ref(cond[0], id, f);
          if (!sel) return [];
          if (typeof cond[1] !== "string") {
            c.error("compact.bad_param", `${f}: the operator must be a text such as "contains", got ${textOf(cond[1])}`, id, f);
            return [];
          }
          const value = cond.length > 2 ? (typeof cond[2] === "string" ? c.text(cond[2], id, f) : cond[2]) : undefined;
          return [{ variable_selector: sel, comparison_operator: cond[1], ...(value !== undefined ? { value } : {}) }];
        });
        return [{ case_id: i === 0 ? "true" : `case_${i + 1}`, logical_operator: k[0] === "or" ? "or" : "and", conditions }];
      });
      caseIds.set(id, [...cases.map((k) => k.case_id), "false"]);
      return { type, config: { cases } };
    }
    case "list-operator": {
      const op = c.list(p.operator, id, "operator");
      const kind = textOf(op[0] ?? "");
      const cfg: Json = {
        variable: c.ref(p.variable, id, "variable") ?? [],
        filter_by: { enabled: false, conditions: [] },
        extract_by: { enabled: false, serial: "1" },
        order_by: { enabled: false, key: "", value: "asc" },
        limit: { enabled: false, size: 10 },
      };
      const arg = op[1];
      if (kind === "filter_by" && arg !== undefined && typeof arg !== "string") c.error("compact.bad_param", `operator: filter_by takes an operator text, got ${textOf(arg)}`, id, "operator");
      else if ((kind === "extract_by" || kind === "limit") && arg !== undefined && !(Number.isSafeInteger(Number(arg)) && Number(arg) >= 0 && nameOf(arg) !== undefined)) {
        c.error("compact.bad_param", `operator: ${kind} takes a whole number, got ${textOf(arg)}`, id, "operator");
      } else if (kind === "filter_by") cfg.filter_by = { enabled: true, conditions: [{ key: "", comparison_operator: arg ?? "contains", value: op[2] }] };
      else if (kind === "extract_by") cfg.extract_by = { enabled: true, serial: nameOf(arg) ?? "1" };
      else if (kind === "order_by") cfg.order_by = { enabled: true, key: "", value: arg === "desc" ? "desc" : "asc" };
      else if (kind === "limit") cfg.limit = { enabled: true, size: Number(arg ?? 10) };
      else c.error("compact.bad_param", `operator kind "${kind}" is not one of filter_by, extract_by, order_by, limit`, id, "operator");
      return { type, config: cfg };
    }
    case "parameter-extractor": {
      const parameters = c.list(p.parameters, id, "parameters").flatMap((q, i) => {
        if (!Array.isArray(q) || q.length < 3 || q.slice(0, 3).some((x) => typeof x !== "string")) {
          c.error("compact.bad_param", `parameters[${i}] must be [description, name, type] texts, got ${textOf(q)}`, id, `parameters[${i}]`);
          return [];
        }
        return [{ description: q[0] as string, name: q[1] as string, type: q[2] as string, required: true }];
      });
      return {
        type,
        config: { query: c.ref(p.query, id, "query") ?? [], parameters, instruction: c.text(p.instruction, id, "instruction"), reasoning_mode: "prompt", model: model(structModel) },
      };
    }
    case "template-transform":
      return { type, config: { variables: c.bindings(p.variables, id, "variables"), template: typeof p.template === "string" ? p.template : "" } };
    case "variable-aggregator":
      return {
        type,
        config: {
          variables: c.list(p.variables, id, "variables").flatMap((v, i) => {
            const sel = c.ref(v, id, `variables[${i}]`);
            return sel ? [sel] : [];
          }),
        },
      };
    case "iteration":
      return {
        type,
        config: {
          iterator_selector: c.ref(p.iterator_selector, id, "iterator_selector") ?? [],
          output_selector: [],
          is_parallel: false,
          parallel_nums: 10,
          error_handle_mode: "terminated",
          flatten_output: true,
        },
      };
    case "iteration-start":
      return { type, config: {} };
  }
  const alias = own(TOOL_ALIASES, type);
  if (alias) {
    const params = alias.params(p);
    const tool_parameters: Json = {};
    for (const [k, v] of Object.entries(params)) {
      if (v === undefined || v === null) c.error("compact.missing_param", `${type} needs a "${k}" text`, id, k);
      tool_parameters[k] = { type: "mixed", value: c.text(v, id, k) };
    }
    const tool_configurations: Json = {};
    for (const [k, v] of Object.entries(alias.configurations ?? {})) tool_configurations[k] = { type: "constant", value: v };
    return {
      type: "tool",
      config: {
        provider_id: alias.providerId,
        provider_type: "builtin",
        provider_name: alias.providerName,
        tool_name: alias.toolName(p),
        tool_label: alias.toolName(p),
        tool_node_version: "2",
        tool_parameters,
        tool_configurations,
        compact_type: type,
      },
    };
  }
  if (getNodeType(type)) return { type, config: passThrough(c, p, id) as Json };
  return undefined;
}

/**
 * Registry types the compact vocabulary has no shorthand for (loop, assigner, answer...): the param is
 * the Dify config itself, with selectors in Dify order `[node_id, var]` and template texts re-targeted.
 */
function passThrough(c: Converter, v: unknown, id: string, field = ""): unknown {
  if (typeof v === "string") return v.includes("{{#") ? c.text(v, id, field) : v;
  if (Array.isArray(v)) {
    if (v.length >= 2 && v.every((x) => typeof x === "string") && c.ids.has(v[0] as string)) return [c.ids.get(v[0] as string)!, ...v.slice(1)];
    return v.map((x, i) => passThrough(c, x, id, `${field}[${i}]`));
  }
  if (isObj(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, passThrough(c, x, id, field ? `${field}.${k}` : k)]));
  return v;
}

/**
 * Convert a generation model's compact JSON into IR. Problems become diagnostics (never silently fixed:
 * repairs are the auto-repair modules' job and they report what they changed).
 */
export function compactToWorkflow(input: unknown, opts: CompactOptions = {}): CompactResult {
  const c = new Converter(opts);
  const fail = (code: string, message: string): CompactResult => {
    c.error(code, message);
    return { diagnostics: c.diags, ids: c.ids };
  };
  if (!isObj(input)) return fail("compact.not_object", "the workflow JSON must be an object with nodes_info and edges");
  // Everything below recurses over params; a workflow nests about 12 levels.
  const deep = tooDeepAt(input);
  if (deep) return fail("compact.too_deep", `the workflow JSON nests deeper than ${MAX_JSON_DEPTH} levels (at ${deep.slice(0, 120)})`);
  if (!Array.isArray(input.nodes_info) || input.nodes_info.length === 0) return fail("compact.no_nodes", "nodes_info must be a non-empty list");
  const edgesRaw = input.edges ?? [];
  if (!Array.isArray(edgesRaw)) return fail("compact.bad_edges", "edges must be a list of [source, port, target]");

  const caseIds = new Map<string, string[]>();
  const classIds = new Map<string, string[]>();
  const nodes: WorkflowNode[] = [];
  const pendingOutputSel = new Map<string, unknown>();
  const raw = input.nodes_info as unknown[];
  const written = new Map<string, string>(); // IR id → the compact id that took it
  // Ids are registered in list order, so a reference to a later node is reported (the format requires order).
  for (const [i, n] of raw.entries()) {
    const cid = isObj(n) ? nameOf(n.id) : undefined;
    if (!isObj(n) || cid === undefined || typeof n.type !== "string") {
      c.error("compact.bad_node", `nodes_info[${i}] must be {id, type, param} with a text or number id and a text type`, undefined, `nodes_info[${i}]`);
      continue;
    }
    if (!/[A-Za-z0-9]/.test(cid)) {
      c.error("compact.bad_node", `nodes_info[${i}] has the id ${JSON.stringify(cid)}; an id needs a letter or digit`, undefined, `nodes_info[${i}].id`);
      continue;
    }
    const clash = written.get(irId(cid));
    if (clash !== undefined) {
      c.error("compact.duplicate_id", clash === cid ? `node id "${cid}" is used twice` : `node ids "${clash}" and "${cid}" are the same id once written for Dify (${irId(cid)})`, irId(cid), "id");
      continue;
    }
    written.set(irId(cid), cid);
    c.ids.set(cid, irId(cid));
    c.types.set(cid, n.type);
    const p = isObj(n.param) ? n.param : {};
    if (n.param !== undefined && !isObj(n.param)) c.error("compact.bad_param", "param must be an object", irId(cid), "param");
    if (n.type === "iteration") pendingOutputSel.set(cid, p.output_selector);
    const conv = nodeConfig(c, n.type, p, irId(cid), caseIds, classIds);
    if (!conv) {
      c.error("compact.unknown_type", `node "${cid}" has unknown type "${n.type}"`, irId(cid), "type");
      continue;
    }
    const dash = cid.indexOf("-");
    const parentCid = dash > 0 ? cid.slice(0, dash) : undefined;
    let parentId: string | undefined;
    if (parentCid !== undefined) {
      const parentType = c.types.get(parentCid);
      if (parentType === "iteration" || parentType === "loop") parentId = irId(parentCid);
      else c.error("compact.bad_child", `node "${cid}" looks like a child of "${parentCid}", which is not an iteration or loop defined before it`, irId(cid), "id");
    }
    nodes.push({ id: irId(cid), type: conv.type, title: typeof n.title === "string" ? n.title : `${n.type} ${cid}`, parentId, config: conv.config });
  }
  // An iteration's output_selector may point forward into its own body, so it is resolved last.
  for (const [cid, sel] of pendingOutputSel) {
    const node = nodes.find((x) => x.id === irId(cid));
    if (!node) continue;
    const resolved = c.ref(sel, node.id, "output_selector");
    node.config.output_selector = resolved ?? [];
    const startChild = nodes.find((x) => x.parentId === node.id && x.type === "iteration-start");
    node.config.start_node_id = startChild?.id ?? "";
    const src = resolved ? nodes.find((x) => x.id === resolved[0]) : undefined;
    const t = src ? describeNode(src).outputs.find((o) => o.name === resolved![1])?.type : undefined;
    if (t) node.config.output_type = t.startsWith("array[") ? "array[any]" : `array[${t}]`;
  }
  // End outputs carry the type of what they read (Dify's value_type), as the reference converter writes it.
  for (const end of nodes.filter((n) => n.type === "end")) {
    for (const o of (end.config.outputs as Array<{ value_selector: string[]; value_type?: string }>) ?? []) {
      const src = nodes.find((x) => x.id === o.value_selector[0]);
      const t = src && o.value_selector.length === 2 ? describeNode(src).outputs.find((d) => d.name === o.value_selector[1])?.type : undefined;
      if (t && t !== "any") o.value_type = t;
    }
  }
  const edges: WorkflowEdge[] = [];
  edgesRaw.forEach((e, i) => {
    if (!Array.isArray(e) || e.length !== 3) {
      c.error("compact.bad_edge", `edges[${i}] must be [source, port, target], got ${JSON.stringify(e)}`, undefined, `edges[${i}]`);
      return;
    }
    const [s, port, t] = e as [unknown, unknown, unknown];
    const src = c.ids.get(nameOf(s) ?? "");
    const dst = c.ids.get(nameOf(t) ?? "");
    if (!src || !dst) {
      c.error("compact.bad_edge", `edges[${i}] joins ${textOf(s)} → ${textOf(t)}, but ${!src ? textOf(s) : textOf(t)} is not a node`, undefined, `edges[${i}]`);
      return;
    }
    const idx = typeof port === "number" ? port : typeof port === "string" && /^\d+$/.test(port.trim()) ? Number(port) : Number.NaN;
    if (!Number.isSafeInteger(idx) || idx < 0) {
      c.error("compact.bad_port", `edges[${i}] port must be a non-negative integer, got ${JSON.stringify(port)}`, src, `edges[${i}]`);
      return;
    }
    const handles = caseIds.get(src) ?? classIds.get(src);
    let sourcePort = "source";
    if (handles) {
      const h = handles[idx];
      if (h === undefined) {
        c.error("compact.bad_port", `edges[${i}]: port ${idx} does not exist on ${textOf(s)} (it has ${handles.length})`, src, `edges[${i}]`);
        return;
      }
      sourcePort = h;
    }
    edges.push({ source: src, sourcePort, target: dst });
  });
  const parsed = WorkflowSchema.safeParse({
    name: opts.name ?? "generated",
    mode: opts.mode ?? (nodes.some((n) => n.type === "answer") ? "advanced-chat" : "workflow"),
    nodes,
    edges,
    meta: { compact: { ids: Object.fromEntries(c.ids) } },
  });
  if (!parsed.success) {
    // The checks above should leave nothing for the schema; what does is still the model's to fix.
    for (const issue of parsed.error.issues.slice(0, 10)) {
      const [where, index] = issue.path;
      const nodeId = where === "nodes" && typeof index === "number" ? nodes[index]?.id : undefined;
      c.error("compact.invalid", `${issue.path.join(".") || "workflow"}: ${issue.message}`, nodeId, issue.path.slice(2).join(".") || undefined);
    }
    return { diagnostics: c.diags, ids: c.ids };
  }
  return { workflow: parsed.data, diagnostics: c.diags, ids: c.ids };
}
