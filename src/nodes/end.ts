import { z } from "zod";
import { normaliseType } from "../ir/types.js";
import { bindingInputs, commonFields, defineNode, VariableBinding } from "./common.js";

const EndConfig = z.object({ ...commonFields, outputs: z.array(VariableBinding).default([]) }).loose();
export type EndConfig = z.infer<typeof EndConfig>;

export const endNode = defineNode<EndConfig>({
  type: "end",
  label: "End",
  category: "io",
  purpose: "Exit of a workflow-mode app: names the workflow's outputs, each bound to a selector.",
  notes: ["Only in workflow mode (advanced-chat apps use answer nodes).", "A missing source value gives null."],
  configSchema: EndConfig,
  example: { outputs: [{ variable: "result", value_selector: ["llm", "text"] }] },
  exit: true,
  modes: ["workflow"],
  outputs: (c) => c.outputs.map((o) => ({ name: o.variable, type: normaliseType(o.value_type ?? "any") })),
  inputs: (c) =>
    bindingInputs(c.outputs, "outputs", false).map((r, i) => {
      const vt = c.outputs[i]?.value_type;
      return vt ? { ...r, expects: normaliseType(vt) } : r;
    }),
  ports: () => [],
  rules(c, ctx) {
    const seen = new Set<string>();
    const out = [];
    for (const [i, o] of c.outputs.entries()) {
      if (seen.has(o.variable)) {
        out.push({
          code: "end.duplicate_output",
          severity: "error" as const,
          nodeId: ctx.node.id,
          field: `outputs[${i}].variable`,
          message: `output "${o.variable}" is declared twice`,
        });
      }
      seen.add(o.variable);
    }
    return out;
  },
  async execute(ctx) {
    const outputs: Record<string, unknown> = {};
    for (const o of ctx.config.outputs) {
      const r = ctx.read(o.value_selector);
      outputs[o.variable] = r.found ? r.value : null;
    }
    return { outputs };
  },
});
