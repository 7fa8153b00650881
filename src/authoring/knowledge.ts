import { z } from "zod";
import { COMPACT_PARAMS, TOOL_ALIASES } from "../dsl/compact/vocabulary.js";
import type { NodeTypeDef, NodeTypes } from "../ir/registry.js";
import type { WorkflowNode } from "../ir/workflow.js";
import { nodeCatalogue } from "../nodes/index.js";

export interface NodeKnowledge {
  /** The type string the model writes in compact JSON. */
  type: string;
  /** The registry type it becomes (tool aliases become `tool`). */
  registryType: string;
  label: string;
  purpose: string;
  /** How to write `param` in compact JSON (shorthand types) or the config fields (other types). */
  params: string;
  fields: Array<{ name: string; type: string; required: boolean }>;
  outputs: Array<{ name: string; type: string }>;
  ports: string;
  rules: string[];
}

const COMMON = new Set([
  "desc",
  "selected",
  "version",
  "error_strategy",
  "default_value",
  "retry_config",
  "timeout_seconds",
  "gates",
  "isInIteration",
  "iteration_id",
  "isInLoop",
  "loop_id",
]);

function fieldsOf(def: NodeTypeDef<any>): NodeKnowledge["fields"] {
  const js = z.toJSONSchema(def.configSchema, { unrepresentable: "any", io: "input" }) as {
    properties?: Record<string, { type?: string | string[]; anyOf?: Array<{ type?: string }> }>;
    required?: string[];
  };
  return Object.entries(js.properties ?? {})
    .filter(([k]) => !COMMON.has(k))
    .map(([name, s]) => ({
      name,
      type: Array.isArray(s.type)
        ? s.type.join("|")
        : (s.type ?? s.anyOf?.map((a) => a.type ?? "any").join("|") ?? "any"),
      required: (js.required ?? []).includes(name),
    }));
}

function outputsOf(def: NodeTypeDef<any>): NodeKnowledge["outputs"] {
  const parsed = def.configSchema.safeParse(def.example ?? {});
  if (!parsed.success) return [];
  const node: WorkflowNode = { id: "example", type: def.type, title: "", config: def.example ?? {} };
  return def
    .outputs(parsed.data, node)
    .filter((o) => !o.name.startsWith("sys."))
    .map((o) => ({ name: o.name, type: o.type }));
}

function portsOf(def: NodeTypeDef<any>): string {
  if (def.type === "if-else") return "one per case, then ELSE (compact port index: case i = i, else = number of cases)";
  if (def.type === "question-classifier") return "one per class (compact port index = class index)";
  if (def.exit && def.type === "end") return "none (exit)";
  return "source (compact port 0)";
}

/**
 * The node knowledge base, generated from the registry (purpose, fields, outputs, ports, rules) plus
 * the compact param shorthand; the node definitions stay the single source of truth for what nodes do.
 */
export function buildKnowledgeBase(types: NodeTypes = nodeCatalogue): NodeKnowledge[] {
  const out: NodeKnowledge[] = [];
  const shorthand = new Set(Object.keys(COMPACT_PARAMS));
  for (const def of types.all()) {
    out.push({
      type: def.type,
      registryType: def.type,
      label: def.label,
      purpose: def.purpose,
      params: COMPACT_PARAMS[def.type] ?? `the Dify config object itself (selectors as [node_id, variable])`,
      fields: shorthand.has(def.type) ? [] : fieldsOf(def),
      outputs: outputsOf(def),
      ports: portsOf(def),
      rules: [...(def.notes ?? []), ...(def.modes ? [`Allowed in ${def.modes.join(", ")} mode only.`] : [])],
    });
  }
  const tool = types.get("tool");
  for (const [alias, spec] of Object.entries(TOOL_ALIASES)) {
    out.push({
      type: alias,
      registryType: "tool",
      label: alias,
      purpose: `Tool node (${spec.providerId}): ${COMPACT_PARAMS[alias]?.split("→")[0]?.trim() ?? ""}`.trim(),
      params: COMPACT_PARAMS[alias] ?? "",
      fields: [],
      outputs: tool ? outputsOf(tool) : [],
      ports: "source (compact port 0)",
      rules: [],
    });
  }
  return out;
}

export function formatKnowledgeBase(kb: NodeKnowledge[] = buildKnowledgeBase()): string {
  return kb
    .map((k) => {
      const lines = [`### ${k.type} — ${k.label}`, k.purpose, `param: ${k.params}`];
      if (k.fields.length)
        lines.push(`fields: ${k.fields.map((f) => `${f.name}${f.required ? "*" : ""}: ${f.type}`).join(", ")}`);
      if (k.outputs.length) lines.push(`outputs: ${k.outputs.map((o) => `${o.name} (${o.type})`).join(", ")}`);
      lines.push(`ports: ${k.ports}`);
      for (const r of k.rules) lines.push(`- ${r}`);
      return lines.join("\n");
    })
    .join("\n\n");
}
