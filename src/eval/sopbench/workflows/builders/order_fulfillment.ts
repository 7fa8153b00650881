import { input, inputs, result, WorkflowBuilder } from "../dsl.js";

/**
 * The SOP's four required steps: inventory, customer and shipping checks (independent, run in parallel), then
 * the decision tool. The decision is the tool's: the SOP forbids deciding by hand.
 */
export function orderFulfillment() {
  const b = new WorkflowBuilder(
    "order_fulfillment",
    "SOP-Bench order fulfillment: inventory, customer and shipping checks feed the fulfillment decision tool.",
  );
  b.start(
    inputs(
      // destination_zip is numeric in the CSV; the shipping tool wants it as a string.
      ["order_id", "product_id", "customer_id", "destination_zip", "shipping_speed", "order_priority"],
      ["quantity_requested", "order_total", "package_weight"],
    ),
  );
  b.tool("inventory", "check_inventory", {
    product_id: input("product_id"),
    quantity_requested: input("quantity_requested"),
  });
  b.tool("customer", "validate_customer", { customer_id: input("customer_id"), order_total: input("order_total") });
  b.tool("shipping", "calculate_shipping", {
    destination_zip: input("destination_zip"),
    package_weight: input("package_weight"),
    shipping_speed: input("shipping_speed"),
  });
  b.tool("decision", "make_fulfillment_decision", {
    inventory_status: [...result("inventory"), "inventory_status"],
    customer_status: [...result("customer"), "customer_status"],
    shipping_cost: [...result("shipping"), "shipping_cost"],
    order_priority: input("order_priority"),
  });
  b.end("end", { expected_output: [...result("decision"), "decision"] });
  for (const t of ["inventory", "customer", "shipping"]) b.edge("start", t).edge(t, "decision");
  b.edge("decision", "end");
  return b.build();
}
