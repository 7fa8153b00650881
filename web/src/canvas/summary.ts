import { readableTemplate, selectorLabel } from "../labels";
import type { WfNode, Workflow } from "../types";

/** The one line a node card shows under its title: what this node does, in the node's own terms. */

type Any = Record<string, any>;
const list = (v: unknown): Any[] => (Array.isArray(v) ? (v as Any[]) : []);
const sel = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : []);
const oneLine = (s: string) => s.replace(/\s+/g, " ").trim();

export function conditionText(wf: Workflow | undefined, c: Any): string {
  const op = String(c?.comparison_operator ?? "");
  const unary = ["empty", "not empty", "null", "not null", "exists", "not exists"].includes(op);
  const value = Array.isArray(c?.value) ? c.value.join(", ") : String(c?.value ?? "");
  const left = selectorLabel(wf, sel(c?.variable_selector)) || "?";
  return oneLine(`${left} ${op}${unary ? "" : ` ${readableTemplate(wf, value) || '""'}`}`);
}

export function ifElseCases(config: Any): Any[] {
  const cases = list(config.cases);
  if (cases.length > 0) return cases;
  if (Array.isArray(config.conditions))
    return [{ case_id: "true", logical_operator: config.logical_operator ?? "and", conditions: config.conditions }];
  return [];
}

function caseText(wf: Workflow | undefined, k: Any): string {
  const conds = list(k.conditions);
  if (conds.length === 0) return "no condition";
  return conds.map((c) => conditionText(wf, c)).join(` ${String(k.logical_operator ?? "and").toUpperCase()} `);
}

/** A label beside each output port: IF/ELIF with the case's condition, a classifier's class, ELSE, FAIL. */
export function portLabel(wf: Workflow | undefined, node: WfNode, port: string): string {
  if (port === "source") return "";
  if (port === "fail-branch") return "FAIL";
  if (node.type === "if-else") {
    if (port === "false") return "ELSE";
    const cases = ifElseCases(node.config);
    const i = cases.findIndex((k) => String(k.case_id) === port);
    return i < 0 ? `CASE ${port}` : `${i === 0 ? "IF" : "ELIF"} ${caseText(wf, cases[i]!)}`;
  }
  if (node.type === "question-classifier") {
    const cls = list(node.config.classes).find((c) => String(c.id) === port);
    return cls ? oneLine(String(cls.name ?? port)) : port;
  }
  return port;
}

const names = (xs: Any[], key: string) =>
  xs
    .map((x) => String(x?.[key] ?? ""))
    .filter(Boolean)
    .join(", ");

export function summary(wf: Workflow | undefined, node: WfNode): string {
  const c = node.config as Any;
  switch (node.type) {
    case "start":
      return `inputs: ${names(list(c.variables), "variable") || "none"}`;
    case "end":
      return `outputs: ${names(list(c.outputs), "variable") || "none"}`;
    case "answer":
      return oneLine(readableTemplate(wf, String(c.answer ?? "")));
    case "llm":
    case "question-classifier":
    case "parameter-extractor":
    case "tool-call": {
      const m = (c.model ?? {}) as Any;
      const model = [String(m.name ?? ""), m.provider ? `(${String(m.provider).split("/").pop()})` : ""]
        .filter(Boolean)
        .join(" ");
      if (node.type === "parameter-extractor") return oneLine(`${model} → ${names(list(c.parameters), "name")}`);
      return model || "no model chosen";
    }
    case "if-else":
      return `${ifElseCases(c).length} case(s) + else`;
    case "code": {
      const outs = c.outputs && typeof c.outputs === "object" ? Object.keys(c.outputs as object) : [];
      return oneLine(`${c.code_language ?? "?"}${outs.length ? ` → ${outs.join(", ")}` : ""}`);
    }
    case "template-transform":
      return oneLine(String(c.template ?? ""));
    case "http-request":
      return oneLine(`${String(c.method ?? "get").toUpperCase()} ${readableTemplate(wf, String(c.url ?? ""))}`);
    case "tool":
      return oneLine([c.provider_name ?? c.provider_id, c.tool_label ?? c.tool_name].filter(Boolean).join(" / "));
    case "knowledge-retrieval": {
      const n = list(c.dataset_ids).length;
      return `${n} knowledge base${n === 1 ? "" : "s"} · query ${selectorLabel(wf, sel(c.query_variable_selector)) || "?"}`;
    }
    case "iteration":
      return `over ${selectorLabel(wf, sel(c.iterator_selector)) || "?"}`;
    case "loop":
      return `up to ${c.loop_count ?? "?"} rounds`;
    case "variable-aggregator":
      return `merges ${list(c.variables).length || list(c.advanced_settings?.groups).length} value(s)`;
    case "assigner": {
      const items = list(c.items);
      const targets = items.length ? items.map((i) => sel(i.variable_selector)) : [sel(c.assigned_variable_selector)];
      return `sets ${
        targets
          .map((t) => selectorLabel(wf, t))
          .filter(Boolean)
          .join(", ") || "?"
      }`;
    }
    case "document-extractor":
      return `reads ${selectorLabel(wf, sel(c.variable_selector)) || "?"}`;
    case "list-operator":
      return `list ${selectorLabel(wf, sel(c.variable)) || "?"}`;
    case "agent":
      return oneLine(String(c.agent_strategy_label ?? c.agent_strategy_name ?? ""));
    default:
      return "";
  }
}
