import type { SopModelInput } from "../../src/compile/model.js";
import type { SourceLogic } from "../../src/compile/validate/source.js";

/** Scripted draft answers: what a model could return for two SOP-Bench domains. */
export function orderFulfillmentModel(): SopModelInput {
  return {
    name: "order-fulfillment",
    description: "SOP-Bench order fulfillment: four tool steps, then the decision in the SOP's format.",
    inputs: [
      { name: "product_id", type: "string" },
      { name: "quantity_requested", type: "number" },
      { name: "customer_id", type: "string" },
      { name: "order_total", type: "number" },
      { name: "destination_zip", type: "string" },
      { name: "package_weight", type: "number" },
      { name: "shipping_speed", type: "string" },
      { name: "order_priority", type: "string" },
    ],
    steps: [
      {
        id: "inventory",
        kind: "tool",
        instruction: "Check inventory status for the product and quantity.",
        tool: "check_inventory",
        reads: ["product_id", "quantity_requested"],
        args: { product_id: "product_id", quantity_requested: "quantity_requested" },
        writes: [{ name: "inventory_status", type: "string", field: "inventory_status" }],
        source: "STEP 1: Check Inventory Status",
      },
      {
        id: "customer",
        kind: "tool",
        instruction: "Validate the customer account.",
        tool: "validate_customer",
        reads: ["customer_id", "order_total"],
        args: { customer_id: "customer_id", order_total: "order_total" },
        writes: [{ name: "customer_status", type: "string", field: "customer_status" }],
      },
      {
        id: "shipping",
        kind: "tool",
        instruction: "Calculate the shipping cost.",
        tool: "calculate_shipping",
        reads: ["destination_zip", "package_weight", "shipping_speed"],
        args: {
          destination_zip: "destination_zip",
          package_weight: "package_weight",
          shipping_speed: "shipping_speed",
        },
        writes: [{ name: "shipping_cost", type: "number", field: "shipping_cost" }],
      },
      {
        id: "decide",
        kind: "tool",
        instruction: "Make the fulfillment decision from the three results and the priority.",
        tool: "make_fulfillment_decision",
        reads: ["inventory_status", "customer_status", "shipping_cost", "order_priority"],
        args: {
          inventory_status: "inventory_status",
          customer_status: "customer_status",
          shipping_cost: "shipping_cost",
          order_priority: "order_priority",
        },
        writes: [{ name: "decision", type: "string", field: "decision" }],
        gates: [
          {
            artifact: "decision",
            check: "one_of",
            value: ["fulfill_immediately", "fulfill_delayed", "backorder", "reject", "manual_review"],
          },
        ],
      },
      {
        id: "answer",
        kind: "agent",
        instruction: "Report the final decision from Step 4 exactly as the tool returned it.",
        reads: ["decision"],
        writes: [{ name: "final_decision", type: "string" }],
        gates: [
          {
            artifact: "final_decision",
            check: "one_of",
            value: ["fulfill_immediately", "fulfill_delayed", "backorder", "reject", "manual_review"],
            message: "final_decision must be one of the five decision categories",
          },
        ],
      },
    ],
    flow: ["inventory", "customer", "shipping", "decide", "answer"],
    outputs: [{ name: "expected_output", artifact: "final_decision" }],
  };
}

export const orderFulfillmentLogic: SourceLogic = { artifacts: [], decisions: [] };

const DG = [
  ["sds", "calculate_sds_label_score", "sds_label_text", "sds_label_score"],
  ["handling", "calculate_handling_score", "handling_and_storage_guidelines", "handling_score"],
  ["transport", "calculate_transportation_score", "transportation_requirements", "transportation_score"],
  ["disposal", "calculate_disposal_score", "disposal_guidelines", "disposal_score"],
] as const;

export function dangerousGoodsModel(): SopModelInput {
  return {
    name: "dangerous-goods",
    inputs: [
      { name: "product_id", type: "string" },
      ...DG.map(([, , col]) => ({ name: col, type: "string" as const })),
    ],
    steps: [
      {
        id: "check_id",
        kind: "code",
        instruction: "Check that the product id has the format P_XXXXX.",
        reads: ["product_id"],
        writes: [{ name: "id_valid", type: "boolean" }],
        code: 'function main({ product_id }) {\n  return { id_valid: /^P_\\d{5}$/.test(String(product_id == null ? "" : product_id)) };\n}',
      },
      ...DG.map(([id, tool, col, key]) => ({
        id,
        kind: "tool" as const,
        instruction: `Compute the ${key.replace(/_/g, " ")} with ${tool}.`,
        tool,
        reads: ["product_id", col],
        args: { product_id: "product_id", [col]: col },
        writes: [{ name: key, type: "number" as const, field: key }],
        on_error: "continue" as const,
      })),
      {
        id: "classify",
        kind: "code",
        instruction: "Impute missing component scores with the max of the others and map the total to a hazard class.",
        reads: DG.map((c) => c[3]),
        writes: [{ name: "hazard_class", type: "string" }],
        code: `function main({ sds_label_score, handling_score, transportation_score, disposal_score }) {
  const scores = [sds_label_score, handling_score, transportation_score, disposal_score].map((v) => {
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
      },
      {
        id: "undecided",
        kind: "code",
        instruction: "An invalid product id: the hazard class is Unable to Decide.",
        reads: [],
        writes: [{ name: "hazard_class", type: "string" }],
        code: 'function main() {\n  return { hazard_class: "Unable to Decide" };\n}',
      },
    ],
    branches: [
      {
        id: "valid_id",
        condition: {
          logical_operator: "and",
          conditions: [{ artifact: "id_valid", comparison_operator: "is", value: "true" }],
        },
        // biome-ignore lint/suspicious/noThenProperty: a branch's `then` path, a field of the workflow model
        then: ["sds", "handling", "transport", "disposal", "classify"],
        else: ["undecided"],
        decision: "id_format_ok",
      },
    ],
    flow: ["check_id", "valid_id"],
    outputs: [{ name: "hazard_class", artifact: "hazard_class" }],
  };
}

export const dangerousGoodsLogic: SourceLogic = {
  artifacts: [{ name: "id_valid", type: "boolean" }],
  decisions: [
    {
      id: "id_format_ok",
      description:
        "If the product ID fails to meet format requirements, no further action; hazard class Unable to Decide.",
      kind: "branch",
      atoms: [{ id: "valid", artifact: "id_valid", comparison_operator: "is", value: "true" }],
      formula: { atom: "valid" },
    },
  ],
};
