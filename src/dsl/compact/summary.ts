import { describeNode } from "../../ir/describe.js";
import type { NodeTypes } from "../../ir/registry.js";
import type { Workflow } from "../../ir/workflow.js";
import { nodeCatalogue } from "../../nodes/index.js";

export interface VariableSummary {
  inputs: Array<{ name: string; type: string }>;
  outputs: Array<{ node: string; name: string; type: string }>;
  nodes: Array<{ id: string; type: string; title: string; outputs: Array<{ name: string; type: string }> }>;
}

/**
 * What a later chat turn needs to know about the current workflow: its inputs, outputs and each node's
 * outputs. `idOf` names nodes as the model sees them (their compact ids).
 */
export function variableSummary(
  wf: Workflow,
  idOf: (irId: string) => string = (id) => id,
  types: NodeTypes = nodeCatalogue,
): VariableSummary {
  const start = wf.nodes.find((n) => n.type === "start");
  const inputs = start
    ? describeNode(start, types)
        .outputs.filter((o) => !o.name.startsWith("sys."))
        .map((o) => ({ name: o.name, type: o.type }))
    : [];
  const outputs = wf.nodes
    .filter((n) => n.type === "end" || n.type === "answer")
    .flatMap((n) =>
      (n.type === "end" ? describeNode(n, types).outputs : [{ name: "answer", type: "string" as const }]).map((o) => ({
        node: idOf(n.id),
        name: o.name,
        type: o.type,
      })),
    );
  const nodes = wf.nodes.map((n) => ({
    id: idOf(n.id),
    type: n.type,
    title: n.title,
    outputs: describeNode(n, types)
      .outputs.filter((o) => !o.name.startsWith("sys."))
      .map((o) => ({ name: o.name, type: o.type })),
  }));
  return { inputs, outputs, nodes };
}

export function formatVariableSummary(s: VariableSummary): string {
  const lines = [
    `Inputs (start): ${s.inputs.map((i) => `${i.name} (${i.type})`).join(", ") || "none"}`,
    `Outputs: ${s.outputs.map((o) => `${o.name} (${o.type})`).join(", ") || "none"}`,
    "Node outputs:",
    ...s.nodes.map(
      (n) => `- ${n.id} [${n.type}] ${n.title}: ${n.outputs.map((o) => `${o.name}:${o.type}`).join(", ") || "(none)"}`,
    ),
  ];
  return lines.join("\n");
}
