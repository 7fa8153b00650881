import { z } from "zod";
import { normaliseType } from "../ir/types.js";
import { commonFields, defineNode, Sel } from "./common.js";

const Group = z
  .object({
    group_name: z.string(),
    output_type: z.string().default("any"),
    variables: z.array(Sel).default([]),
    groupId: z.string().optional(),
  })
  .loose();

const VariableAggregatorConfig = z
  .object({
    ...commonFields,
    output_type: z.string().default("any"),
    variables: z.array(Sel).default([]),
    advanced_settings: z
      .object({ group_enabled: z.boolean().default(false), groups: z.array(Group).default([]) })
      .loose()
      .optional()
      .nullable(),
  })
  .loose();
export type VariableAggregatorConfig = z.infer<typeof VariableAggregatorConfig>;

function grouped(c: VariableAggregatorConfig) {
  return c.advanced_settings?.group_enabled ? c.advanced_settings.groups : undefined;
}

export const variableAggregatorNode = defineNode<VariableAggregatorConfig>({
  type: "variable-aggregator",
  aliases: ["variable-assigner"],
  label: "Variable Aggregator",
  category: "transform",
  purpose:
    "Merges branches: outputs the first listed variable that exists (the branch that ran), so downstream nodes can read one value after an if-else or classifier.",
  notes: ["In group mode each group yields {{#<id>.<group_name>.output#}}."],
  configSchema: VariableAggregatorConfig,
  example: {
    output_type: "string",
    variables: [
      ["llm_a", "text"],
      ["llm_b", "text"],
    ],
  },
  outputs: (c) => {
    const groups = grouped(c);
    if (groups) return groups.map((g) => ({ name: g.group_name, type: "object" as const }));
    return [{ name: "output", type: normaliseType(c.output_type) }];
  },
  inputs: (c) => {
    const groups = grouped(c);
    if (groups) {
      return groups.flatMap((g, gi) =>
        g.variables.map((s, i) => ({
          selector: s,
          field: `advanced_settings.groups[${gi}].variables[${i}]`,
          optional: true,
          expects: normaliseType(g.output_type),
        })),
      );
    }
    return c.variables.map((s, i) => ({
      selector: s,
      field: `variables[${i}]`,
      optional: true,
      expects: normaliseType(c.output_type),
    }));
  },
  ports: () => ["source"],
  rules(c, ctx) {
    const groups = grouped(c);
    const empty = groups ? groups.some((g) => g.variables.length === 0) : c.variables.length === 0;
    return empty
      ? [
          {
            code: "aggregator.no_variables",
            severity: "error",
            nodeId: ctx.node.id,
            field: groups ? "advanced_settings.groups" : "variables",
            message: "variable-aggregator lists no variables to merge",
          },
        ]
      : [];
  },
  async execute(ctx) {
    const first = (sels: string[][]) => {
      for (const s of sels) {
        const r = ctx.read(s);
        if (r.found) return r.value;
      }
      return null;
    };
    const groups = grouped(ctx.config);
    if (groups) {
      const outputs: Record<string, unknown> = {};
      for (const g of groups) outputs[g.group_name] = { output: first(g.variables) };
      return { outputs };
    }
    return { outputs: { output: first(ctx.config.variables) } };
  },
});
