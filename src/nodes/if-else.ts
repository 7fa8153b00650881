import { z } from "zod";
import { NodeExecutionError } from "../ir/errors.js";
import { commonFields, defineNode } from "./common.js";
import {
  Condition,
  ConditionError,
  conditionInputs,
  conditionRules,
  conditionTexts,
  evaluateConditions,
} from "./conditions.js";

const Case = z
  .object({
    case_id: z.union([z.string(), z.number()]).transform(String),
    logical_operator: z.enum(["and", "or"]).default("and"),
    conditions: z.array(Condition).default([]),
  })
  .loose();

const IfElseConfig = z
  .object({
    ...commonFields,
    cases: z.array(Case).optional(),
    // Legacy layout (before multi-case if-else): one implicit case with id "true".
    logical_operator: z.enum(["and", "or"]).optional(),
    conditions: z.array(Condition).optional(),
  })
  .loose();
export type IfElseConfig = z.infer<typeof IfElseConfig>;
type CaseT = z.infer<typeof Case>;

/** The cases the engine evaluates: the explicit list, or the legacy single case. */
export function ifElseCases(c: IfElseConfig): CaseT[] {
  if (c.cases && c.cases.length > 0) return c.cases;
  if (c.conditions)
    return [{ case_id: "true", logical_operator: c.logical_operator ?? "and", conditions: c.conditions }];
  return [];
}

/** How Dify's studio names a case: the first is IF, the rest ELIF 1, ELIF 2… (ids are opaque numbers to a reader). */
export function caseLabel(i: number): string {
  return i === 0 ? "IF" : `ELIF ${i}`;
}

function caseField(c: IfElseConfig, i: number): string {
  return c.cases && c.cases.length > 0 ? `cases[${i}].conditions` : "conditions";
}

export const ifElseNode = defineNode<IfElseConfig>({
  type: "if-else",
  label: "IF/ELSE",
  category: "logic",
  purpose:
    "Branches on conditions: cases are tried in order, the first true case's port is taken, otherwise the `false` (else) port.",
  notes: [
    "Ports: each case_id (the first case is conventionally `true`) and `false` for else.",
    "Operators: contains, not contains, start with, end with, is, is not, empty, not empty, in, not in, all of, =, ≠, >, <, ≥, ≤, null, not null, exists, not exists.",
    "A missing condition variable fails the node; join branches with a variable-aggregator.",
  ],
  configSchema: IfElseConfig,
  example: {
    cases: [
      {
        case_id: "true",
        logical_operator: "and",
        conditions: [{ variable_selector: ["start", "x"], comparison_operator: "contains", value: "yes" }],
      },
    ],
  },
  outputs: () => [
    { name: "result", type: "boolean" },
    { name: "selected_case_id", type: "string" },
  ],
  inputs: (c) => ifElseCases(c).flatMap((k, i) => conditionInputs(k.conditions, caseField(c, i))),
  ports: (c) => [...ifElseCases(c).map((k) => k.case_id), "false"],
  texts: (c) => ifElseCases(c).flatMap((k, i) => conditionTexts(k.conditions, caseField(c, i))),
  rules(c, ctx) {
    const cases = ifElseCases(c);
    const out = cases.flatMap((k, i) => conditionRules(k.conditions, caseField(c, i), ctx.node.id));
    if (cases.length === 0) {
      out.push({
        code: "if_else.no_cases",
        severity: "error",
        nodeId: ctx.node.id,
        field: "cases",
        message: "if-else node has no cases",
      });
    }
    const ids = new Set<string>();
    for (const [i, k] of cases.entries()) {
      if (ids.has(k.case_id) || k.case_id === "false") {
        out.push({
          code: "if_else.duplicate_case",
          severity: "error",
          nodeId: ctx.node.id,
          field: `cases[${i}].case_id`,
          message: `${caseLabel(i)} reuses the case id "${k.case_id}" of an earlier case (or the else port "false")`,
        });
      }
      ids.add(k.case_id);
      if (k.conditions.length === 0) {
        out.push({
          code: "if_else.empty_case",
          severity: "warning",
          nodeId: ctx.node.id,
          field: `cases[${i}].conditions`,
          message:
            k.logical_operator === "or"
              ? `${caseLabel(i)} has no conditions, so it never matches`
              : `${caseLabel(i)} has no conditions, so it always matches and the branches after it never run`,
        });
      }
    }
    return out;
  },
  async execute(ctx) {
    const env = { read: (sel: readonly string[]) => ctx.read(sel), render: (t: string) => ctx.render(t) };
    for (const [i, k] of ifElseCases(ctx.config).entries()) {
      let hit: boolean;
      try {
        hit = evaluateConditions(k.conditions, k.logical_operator, env);
      } catch (e) {
        if (e instanceof ConditionError) {
          throw new NodeExecutionError(e.code, `${caseLabel(i)}: ${e.message}`, ctx.node.id, { case: k.case_id });
        }
        throw e;
      }
      if (hit) return { outputs: { result: true, selected_case_id: k.case_id }, port: k.case_id };
    }
    return { outputs: { result: false, selected_case_id: "false" }, port: "false" };
  },
});
