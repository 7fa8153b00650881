import { type Workflow, WorkflowSchema } from "../../src/ir/workflow.js";

export interface NodeSpec {
  id: string;
  type: string;
  title?: string;
  parentId?: string;
  [k: string]: unknown;
}

/** Build a Weft workflow from terse specs: edges are [source, target] or [source, port, target]. */
export function buildWorkflow(spec: {
  mode?: "workflow" | "advanced-chat";
  nodes: NodeSpec[];
  edges: Array<[string, string] | [string, string, string]>;
  conversation_variables?: Workflow["conversation_variables"];
  environment_variables?: Workflow["environment_variables"];
}): Workflow {
  return WorkflowSchema.parse({
    name: "test",
    mode: spec.mode ?? "workflow",
    nodes: spec.nodes.map(({ id, type, title, parentId, ...config }) => ({
      id,
      type,
      title: title ?? id,
      parentId,
      config,
    })),
    edges: spec.edges.map((e) =>
      e.length === 2 ? { source: e[0], target: e[1] } : { source: e[0], sourcePort: e[1], target: e[2] },
    ),
    conversation_variables: spec.conversation_variables ?? [],
    environment_variables: spec.environment_variables ?? [],
  });
}

export const tpl = (
  id: string,
  template: string,
  vars: Record<string, string[]> = {},
  extra: Record<string, unknown> = {},
) => ({
  id,
  type: "template-transform",
  template,
  variables: Object.entries(vars).map(([variable, value_selector]) => ({ variable, value_selector })),
  ...extra,
});

/** start(n) → one template (`a{{ n }}` unless given) → end(out): the smallest run that commits a node of its own. */
export const oneTemplateChain = (template = "a{{ n }}") =>
  buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "n", type: "text-input" }] },
      tpl("a", template, { n: ["start", "n"] }),
      { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["a", "output"] }] },
    ],
    edges: [
      ["start", "a"],
      ["a", "end"],
    ],
  });
