import type { Diagnostic } from "./diagnostics.js";
import type { InputRef, NodeTypeDef, NodeTypes, TextField } from "./registry.js";
import { normaliseType } from "./types.js";
import type { OutputDecl, WorkflowNode } from "./workflow.js";

export interface NodeDescription {
  node: WorkflowNode;
  def?: NodeTypeDef<any>;
  /** Parsed config, or undefined when it does not match the schema. */
  config?: Record<string, unknown>;
  configDiagnostics: Diagnostic[];
  inputs: InputRef[];
  outputs: OutputDecl[];
  ports: string[];
  texts: TextField[];
  /** False when the node type is unknown or its config is invalid: outputs are then not known. */
  known: boolean;
}

/** The error-handling outputs and port every node gains from `error_strategy` (Dify §2.4). */
function errorStrategyExtras(config: Record<string, unknown>): { outputs: OutputDecl[]; ports: string[] } {
  const strategy = config.error_strategy;
  const outputs: OutputDecl[] = [];
  const ports: string[] = [];
  if (strategy === "fail-branch" || strategy === "default-value") {
    outputs.push({ name: "error_message", type: "string" }, { name: "error_type", type: "string" });
  }
  if (strategy === "fail-branch") ports.push("fail-branch");
  return { outputs, ports };
}

function zodIssuesToDiagnostics(node: WorkflowNode, issues: ReadonlyArray<{ path: PropertyKey[]; message: string }>) {
  return issues.slice(0, 20).map((iss) => {
    const field = iss.path
      .map((p) => (typeof p === "number" ? `[${p}]` : String(p)))
      .join(".")
      .replace(/\.\[/g, "[");
    return {
      code: "config.invalid",
      severity: "error" as const,
      nodeId: node.id,
      field: field || undefined,
      message: `${node.type} node "${node.title || node.id}": ${field || "config"}: ${iss.message}`,
    };
  });
}

const caches = new WeakMap<NodeTypes, WeakMap<WorkflowNode, NodeDescription>>();

function cacheOf(types: NodeTypes): WeakMap<WorkflowNode, NodeDescription> {
  let cache = caches.get(types);
  if (!cache) {
    cache = new WeakMap();
    caches.set(types, cache);
  }
  return cache;
}

/**
 * Everything the analyser, engine and makers need about one node, derived from its type's definition in
 * `types`. Memoised per node object and catalogue: IR nodes are treated as immutable once built.
 */
export function describeNode(node: WorkflowNode, types: NodeTypes): NodeDescription {
  const cache = cacheOf(types);
  const hit = cache.get(node);
  if (hit) return hit;
  const def = types.get(node.type);
  let desc: NodeDescription;
  if (!def) {
    desc = { node, configDiagnostics: [], inputs: [], outputs: [], ports: ["source"], texts: [], known: false };
  } else {
    const parsed = def.configSchema.safeParse(node.config ?? {});
    if (!parsed.success) {
      desc = {
        node,
        def,
        configDiagnostics: zodIssuesToDiagnostics(node, parsed.error.issues),
        inputs: [],
        outputs: [],
        ports: ["source", ...errorStrategyExtras(node.config ?? {}).ports],
        texts: [],
        known: false,
      };
    } else {
      const config = parsed.data as Record<string, unknown>;
      const extras = errorStrategyExtras(config);
      desc = {
        node,
        def,
        config,
        configDiagnostics: [],
        inputs: def.inputs(config, node),
        outputs: [...def.outputs(config, node), ...extras.outputs],
        ports: [...def.ports(config, node), ...extras.ports],
        texts: def.texts?.(config, node) ?? [],
        known: true,
      };
    }
  }
  cache.set(node, desc);
  return desc;
}

export function outputTypeOf(desc: NodeDescription, name: string) {
  return desc.outputs.find((o) => o.name === name)?.type;
}

export { normaliseType };
