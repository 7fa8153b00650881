import type { NodeTypes } from "../ir/registry.js";
import { SYSTEM_VARIABLES } from "../ir/system.js";
import { normaliseType, type ValueType } from "../ir/types.js";
import type { AppMode, Workflow } from "../ir/workflow.js";
import { computeAvailability } from "./availability.js";
import { DiagnosticSink } from "./codes.js";
import { scopeChain } from "./graph.js";
import { prepareGraph } from "./prepare.js";

export interface AvailableValue {
  selector: string[];
  type: ValueType;
  /** node: an upstream output certain to exist; scope: a container's item/index/loop variable. */
  source: "node" | "scope" | "sys" | "env" | "conversation";
}

/**
 * The values a node can read safely: outputs of nodes certain to have run before it (availability
 * at joins), the scope values of its enclosing containers, and the app's globals. For generation
 * prompts and repair hints ("what could this selector have been?"). Undefined for an unknown id.
 */
export function availableAt(
  workflow: Workflow,
  types: NodeTypes,
  nodeId: string,
  opts: { mode?: AppMode } = {},
): AvailableValue[] | undefined {
  const mode: AppMode = opts.mode ?? (workflow?.mode === "advanced-chat" ? "advanced-chat" : "workflow");
  const { g, reached } = prepareGraph(workflow, mode, types, new DiagnosticSink());
  const idx = g.byId.get(nodeId);
  if (idx === undefined) return undefined;
  const all = new Set(g.nodes.map((n) => n.idx));
  const av = computeAvailability(g, all, reached);
  const out: AvailableValue[] = [];
  for (const n of g.nodes) {
    if (n.idx === idx) continue;
    for (const o of n.desc.outputs) {
      // The start node's sys.* re-exports are aliases of the sys values listed below.
      if (o.name.startsWith("sys.") || !av.has(idx, n.idx, o.name)) continue;
      out.push({ selector: [n.id, o.name], type: o.type, source: "node" });
    }
  }
  for (const c of scopeChain(g, idx)) {
    if (c < 0) continue;
    const cn = g.nodes[c]!;
    if (!cn.def?.scopeOutputs || !cn.desc.config) continue;
    try {
      for (const o of cn.def.scopeOutputs(cn.desc.config, cn.node))
        out.push({ selector: [cn.id, o.name], type: o.type, source: "scope" });
    } catch {
      // a broken container config is reported by analyse(); nothing to offer here
    }
  }
  for (const s of SYSTEM_VARIABLES)
    if (s.modes.includes(mode)) out.push({ selector: ["sys", s.name], type: s.type, source: "sys" });
  for (const v of workflow.environment_variables ?? [])
    out.push({ selector: ["env", v.name], type: normaliseType(v.value_type), source: "env" });
  if (mode === "advanced-chat") {
    for (const v of workflow.conversation_variables ?? []) {
      out.push({ selector: ["conversation", v.name], type: normaliseType(v.value_type), source: "conversation" });
    }
  }
  return out;
}
