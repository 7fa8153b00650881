import type { EnvOptions, TaskInput } from "../../../src/eval/sopbench/index.js";
import { obj, type Tools, tools } from "./client.js";

const COMPONENTS = [
  ["calculate_sds_label_score", "sds_label_text", "sds_label_score"],
  ["calculate_handling_score", "handling_and_storage_guidelines", "handling_score"],
  ["calculate_transportation_score", "transportation_requirements", "transportation_score"],
  ["calculate_disposal_score", "disposal_guidelines", "disposal_score"],
] as const;

/**
 * SOP §5: invalid id → Unable to Decide; a missing/0 component is imputed with the max of the others;
 * "more than two missing" is read as ≥ 2 (the reading the labels follow, 274/274). Class boundaries are not
 * stated; the data implies A 4–7, B 8–12, C 13–16, D 17–20.
 */
export async function dangerousGoods(task: TaskInput, options: EnvOptions = {}, using?: Tools) {
  const t = using ?? tools(task.domain, options);
  const id = task.inputs.product_id as string;
  const undecided = { hazard_score: 0, hazard_class: "Unable to Decide" };
  if (!/^P_\d{5}$/.test(id)) return undecided;
  const scores: (number | undefined)[] = [];
  for (const [tool, textCol, key] of COMPONENTS) {
    const r = await t.tryCall(tool, { product_id: id, [textCol]: task.inputs[textCol] });
    const s = r instanceof Error ? undefined : Number(obj(r)[key]);
    scores.push(s && s >= 1 && s <= 5 ? s : undefined);
  }
  const present = scores.filter((s): s is number => s !== undefined);
  if (scores.length - present.length >= 2) return undecided;
  const max = Math.max(...present);
  const total = scores.reduce<number>((a, s) => a + (s ?? max), 0);
  const cls = total <= 7 ? "A" : total <= 12 ? "B" : total <= 16 ? "C" : "D";
  return { hazard_score: total, hazard_class: `Hazard Class ${cls}` };
}
