import type { EnvOptions, TaskInput } from "../../../src/eval/sopbench/index.js";
import { obj, type Tools, tools } from "./client.js";

/** The SOP's four required steps; the decision is the last tool's (the SOP forbids manual decisions). */
export async function orderFulfillment(task: TaskInput, options: EnvOptions = {}, using?: Tools) {
  const t = using ?? tools(task.domain, options);
  const i = task.inputs;
  const inv = obj(
    await t.call("check_inventory", { product_id: i.product_id, quantity_requested: i.quantity_requested }),
  );
  const cust = obj(await t.call("validate_customer", { customer_id: i.customer_id, order_total: i.order_total }));
  const ship = obj(
    await t.call("calculate_shipping", {
      destination_zip: String(i.destination_zip),
      package_weight: i.package_weight,
      shipping_speed: i.shipping_speed,
    }),
  );
  const decision = obj(
    await t.call("make_fulfillment_decision", {
      inventory_status: inv.inventory_status,
      customer_status: cust.customer_status,
      shipping_cost: ship.shipping_cost,
      order_priority: i.order_priority,
    }),
  );
  return { expected_output: decision.decision };
}
