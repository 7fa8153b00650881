/** If-else conditions as edits write them (add_branch, refine_branch), and as the node stores them. */
import { z } from "zod";

export const ConditionSchema = z.object({
  selector: z.array(z.string()).min(1),
  operator: z.string().min(1),
  value: z.unknown().optional(),
});
export type Condition = z.infer<typeof ConditionSchema>;

export function storedConditions(list: Condition[]) {
  return list.map((c) => ({
    variable_selector: c.selector,
    comparison_operator: c.operator,
    ...(c.value !== undefined ? { value: c.value } : {}),
  }));
}
