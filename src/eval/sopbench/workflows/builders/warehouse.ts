import { input, inputs, result, type Selector, WorkflowBuilder } from "../dsl.js";

const f = (node: string, key: string): Selector => [...result(node), key];

/**
 * SOP §5: a barcode mismatch short-circuits to "Returned to Vendor" (report only). Otherwise quantity, location
 * and condition are checked in parallel; their problems drive the chargeback and updateResolutionStatus from
 * "Pending". No problem at all closes the receipt as "Resolved": the SOP does not name that state, the labels
 * do.
 */
export function warehouse() {
  const b = new WorkflowBuilder(
    "warehouse_package_inspection",
    "SOP-Bench warehouse package inspection: barcode, quantity, location and condition checks; chargeback and resolution status.",
  );
  b.start(
    inputs(
      [
        "po_number",
        "vendor_id",
        "vendor_name",
        "confirmed_product_id",
        "received_product_bar_code",
        "product_name",
        "intended_warehouse_id",
        "actual_warehouse_id",
        "receipt_date",
        "package_image_path",
      ],
      ["ordered_quantity", "confirmed_quantity", "received_quantity", "unit_cost"],
    ),
  );
  const po_number = input("po_number");
  const c = b.constants("constants", { wrong_item: ["Wrong Item"], none: [], zero: 0 });
  const vendor = { po_number, vendor_id: input("vendor_id"), vendor_name: input("vendor_name") };
  b.tool("barcode", "validateBarcode", {
    po_number,
    confirmed_product_id: input("confirmed_product_id"),
    received_product_bar_code: input("received_product_bar_code"),
  });
  b.ifElse("barcode_ok", "Barcode matches?", [
    { id: "true", when: [{ selector: f("barcode", "barcode_match"), op: "is", value: "true" }] },
  ]);
  b.tool("report_wrong_item", "generateProblemReport", {
    ...vendor,
    problem_type: c("wrong_item"),
    charge_amount: c("zero"),
    resolution_status: { const: "Returned to Vendor" },
  });
  b.template("returned", "Returned to Vendor", "Returned to Vendor");
  b.tool("quantity", "calculateQuantityVariance", {
    po_number,
    ordered_quantity: input("ordered_quantity"),
    confirmed_quantity: input("confirmed_quantity"),
    received_quantity: input("received_quantity"),
  });
  b.tool("location", "verifyWarehouseLocation", {
    po_number,
    intended_warehouse_id: input("intended_warehouse_id"),
    actual_warehouse_id: input("actual_warehouse_id"),
  });
  b.tool("condition", "assessPackageCondition", { po_number, package_image_path: input("package_image_path") });
  b.code(
    "problems",
    "Collect problems",
    {
      quantity: f("quantity", "problem_type"),
      location: f("location", "problem_type"),
      condition: f("condition", "problem_type"),
    },
    `
function main({ quantity, location, condition }) {
  const problems = [].concat(quantity || [], location || [], condition || []);
  return { problems, any: problems.length > 0 };
}`,
    { problems: "array[string]", any: "boolean" },
  );
  b.ifElse("has_problems", "Any problem?", [
    { id: "true", when: [{ selector: ["problems", "any"], op: "is", value: "true" }] },
  ]);
  b.tool("report_clean", "generateProblemReport", {
    ...vendor,
    problem_type: c("none"),
    charge_amount: c("zero"),
    resolution_status: { const: "Pending" },
  });
  b.template("resolved", "Resolved", "Resolved");
  b.tool("chargeback", "calculateChargeback", {
    po_number,
    problem_type: ["problems", "problems"],
    ordered_quantity: input("ordered_quantity"),
    received_quantity: input("received_quantity"),
    unit_cost: input("unit_cost"),
  });
  b.tool("resolution", "updateResolutionStatus", {
    po_number,
    problem_type: ["problems", "problems"],
    current_status: { const: "Pending" },
  });
  b.tool("report_problems", "generateProblemReport", {
    ...vendor,
    problem_type: ["problems", "problems"],
    charge_amount: f("chargeback", "charge_amount"),
    resolution_status: f("resolution", "resolution_status"),
  });
  b.aggregate("status_out", "Resolution status", "string", [
    ["returned", "output"],
    ["resolved", "output"],
    f("resolution", "resolution_status"),
  ]);
  b.end("end", { resolution_status: ["status_out", "output"] });

  b.chain("start", "constants", "barcode", "barcode_ok")
    .edge("barcode_ok", "report_wrong_item", "false")
    .chain("report_wrong_item", "returned", "status_out");
  for (const t of ["quantity", "location", "condition"]) b.edge("barcode_ok", t, "true").edge(t, "problems");
  b.chain("problems", "has_problems")
    .edge("has_problems", "report_clean", "false")
    .chain("report_clean", "resolved", "status_out")
    .edge("has_problems", "chargeback", "true")
    .chain("chargeback", "resolution", "report_problems", "status_out", "end");
  return b.build();
}
