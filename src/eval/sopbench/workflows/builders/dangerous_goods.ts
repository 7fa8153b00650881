import { input, inputs, result, WorkflowBuilder } from "../dsl.js";

const COMPONENTS = [
  ["sds", "calculate_sds_label_score", "sds_label_text", "sds_label_score"],
  ["handling", "calculate_handling_score", "handling_and_storage_guidelines", "handling_score"],
  ["transport", "calculate_transportation_score", "transportation_requirements", "transportation_score"],
  ["disposal", "calculate_disposal_score", "disposal_guidelines", "disposal_score"],
] as const;

/**
 * SOP §5: an invalid product id is "Unable to Decide"; the four component scores are computed in parallel;
 * a refused, missing or out-of-range (not 1–5) score is imputed with the max of the others, and "more than
 * two missing" is read as ≥ 2 (the labels' reading). Class bands implied by the data: A 4–7, B 8–12, C 13–16,
 * D 17–20.
 */
export function dangerousGoods() {
  const b = new WorkflowBuilder(
    "dangerous_goods",
    "SOP-Bench dangerous goods: hazard class from the four component scores, with max-imputation of missing ones.",
  );
  b.start(
    inputs(
      ["product_id"],
      [],
      COMPONENTS.map((c) => c[2]),
    ),
  );
  b.code(
    "check_id",
    "Product id well-formed?",
    { id: input("product_id") },
    `
function main({ id }) {
  return { valid: /^P_\\d{5}$/.test(String(id == null ? "" : id)) };
}`,
    { valid: "boolean" },
  );
  b.ifElse("is_valid", "Valid id?", [
    { id: "true", when: [{ selector: ["check_id", "valid"], op: "is", value: "true" }] },
  ]);
  for (const [id, tool, col] of COMPONENTS)
    b.tool(id, tool, { product_id: input("product_id"), [col]: input(col) }, { onError: "continue" });
  b.code(
    "classify",
    "Impute and classify",
    Object.fromEntries(COMPONENTS.map(([id, , , key]) => [id, [...result(id), key]])) as Record<
      string,
      [string, ...string[]]
    >,
    `
function main({ sds, handling, transport, disposal }) {
  const scores = [sds, handling, transport, disposal].map((v) => {
    const s = Number(v);
    return v != null && s >= 1 && s <= 5 ? s : undefined;
  });
  const present = scores.filter((s) => s !== undefined);
  if (scores.length - present.length >= 2) return { hazard_class: "Unable to Decide" };
  const max = Math.max(...present);
  const total = scores.reduce((a, s) => a + (s === undefined ? max : s), 0);
  const cls = total <= 7 ? "A" : total <= 12 ? "B" : total <= 16 ? "C" : "D";
  return { hazard_class: "Hazard Class " + cls };
}`,
    { hazard_class: "string" },
  );
  b.template("undecided", "Unable to Decide", "Unable to Decide");
  b.aggregate("class_out", "Hazard class", "string", [
    ["classify", "hazard_class"],
    ["undecided", "output"],
  ]);
  b.end("end", { hazard_class: ["class_out", "output"] });

  b.chain("start", "check_id", "is_valid").edge("is_valid", "undecided", "false");
  for (const [id] of COMPONENTS) b.edge("is_valid", id, "true").edge(id, "classify");
  b.chain("classify", "class_out").chain("undecided", "class_out").chain("class_out", "end");
  return b.build();
}
