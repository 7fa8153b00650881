/** refine_branch: new conditions (and optionally operator) for one if-else case. */
import { z } from "zod";
import { ConditionSchema, storedConditions } from "./conditions.js";
import { editFail } from "./error.js";
import { casesOf, ifElseOf } from "./if-else.js";
import { editKind } from "./kind.js";

export const refineBranch = editKind({
  schema: z.object({
    kind: z.literal("refine_branch"),
    ifElse: z.string(),
    caseId: z.string(),
    conditions: z.array(ConditionSchema).min(1),
    logical_operator: z.enum(["and", "or"]).optional(),
  }),
  apply(g, e) {
    const ie = ifElseOf(g, e.ifElse);
    const k = casesOf(ie).find((x) => String(x.case_id) === e.caseId);
    if (!k) editFail("edit.unknown_case", `if-else "${ie.id}" has no case "${e.caseId}"`, ie.id, "caseId");
    k.conditions = storedConditions(e.conditions);
    if (e.logical_operator) k.logical_operator = e.logical_operator;
  },
  describe: (e) => `branch ${e.ifElse}/${e.caseId} refined`,
});
