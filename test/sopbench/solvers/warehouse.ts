import type { EnvOptions, TaskInput } from "../../../src/eval/sopbench/index.js";
import { obj, type Tools, tools } from "./client.js";

/**
 * SOP §5: a barcode mismatch short-circuits to "Returned to Vendor" (report only). Otherwise the problems
 * from quantity/location/condition drive updateResolutionStatus from "Pending". No problem at all closes the
 * receipt as "Resolved": the SOP does not name that state, the labels do (14 rows).
 */
export async function warehouse(task: TaskInput, options: EnvOptions = {}, using?: Tools) {
  const t = using ?? tools(task.domain, options);
  const i = task.inputs;
  const po = i.po_number;
  const report = async (problem_type: string[], charge_amount: number, resolution_status: string) =>
    t.call("generateProblemReport", {
      po_number: po,
      vendor_id: i.vendor_id,
      vendor_name: i.vendor_name,
      problem_type,
      charge_amount,
      resolution_status,
    });

  const barcode = obj(
    await t.call("validateBarcode", {
      po_number: po,
      confirmed_product_id: i.confirmed_product_id,
      received_product_bar_code: i.received_product_bar_code,
    }),
  );
  if (barcode.barcode_match !== true) {
    await report(["Wrong Item"], 0, "Returned to Vendor");
    return { resolution_status: "Returned to Vendor" };
  }
  const qv = obj(
    await t.call("calculateQuantityVariance", {
      po_number: po,
      ordered_quantity: i.ordered_quantity,
      confirmed_quantity: i.confirmed_quantity,
      received_quantity: i.received_quantity,
    }),
  );
  const loc = obj(
    await t.call("verifyWarehouseLocation", {
      po_number: po,
      intended_warehouse_id: i.intended_warehouse_id,
      actual_warehouse_id: i.actual_warehouse_id,
    }),
  );
  const cond = obj(await t.call("assessPackageCondition", { po_number: po, package_image_path: i.package_image_path }));
  const problems = [
    ...(qv.problem_type as string[]),
    ...(loc.problem_type as string[]),
    ...(cond.problem_type as string[]),
  ];
  if (problems.length === 0) {
    await report([], 0, "Pending");
    return { resolution_status: "Resolved" };
  }
  const charge = obj(
    await t.call("calculateChargeback", {
      po_number: po,
      problem_type: problems,
      ordered_quantity: i.ordered_quantity,
      received_quantity: i.received_quantity,
      unit_cost: i.unit_cost,
    }),
  );
  const status = obj(
    await t.call("updateResolutionStatus", { po_number: po, problem_type: problems, current_status: "Pending" }),
  );
  await report(problems, Number(charge.charge_amount), String(status.resolution_status));
  return { resolution_status: status.resolution_status };
}
