import { SopBenchError } from "../errors.js";
import { pyInt, round2 } from "../values.js";
import type { RuleCtx, RuleHandler } from "./types.js";

interface Tables {
  inventory: Record<string, { name: string; stock: number; reorder_level: number }>;
  customers: Record<string, { name: string; tier: string; status: string; total_orders: number; fraud_score: number }>;
  shipping_rates: Record<string, { base: number; per_lb: number; days_min: number; days_max: number }>;
  remote_zip_prefixes: string[];
}

function tables(ctx: RuleCtx): Tables {
  const t = ctx.domain.constants as Tables | undefined;
  if (!t?.inventory) throw new SopBenchError("sopbench.data", "order_fulfillment/embedded_tables.json is missing");
  return t;
}

function num(ctx: RuleCtx, name: string): number {
  const v = ctx.args[name];
  const n = typeof v === "string" ? Number(v) : v;
  if (typeof n !== "number" || !Number.isFinite(n))
    ctx.fail(`could not convert ${name} to float: ${JSON.stringify(v)}`);
  return n as number;
}

/** order_fulfillment: rules over the constant tables; no CSV is read (see tool_bindings.json). */
export const orderFulfillmentRules: Record<string, RuleHandler> = {
  check_inventory: (ctx) => {
    const pid = String(ctx.args.product_id).toUpperCase();
    let q: number;
    try {
      q = pyInt(ctx.args.quantity_requested);
    } catch (e) {
      return ctx.fail((e as Error).message);
    }
    const item = tables(ctx).inventory[pid];
    if (!item)
      return {
        inventory_status: "product_not_found",
        available_quantity: 0,
        can_fulfill: false,
        message: `Product ${pid} not found in inventory`,
      };
    const status =
      item.stock === 0
        ? "out_of_stock"
        : item.stock < q
          ? "insufficient_stock"
          : item.stock <= item.reorder_level
            ? "low_stock"
            : "in_stock";
    return {
      inventory_status: status,
      available_quantity: item.stock,
      quantity_requested: q,
      can_fulfill: status === "in_stock" || status === "low_stock",
      product_name: item.name,
    };
  },
  validate_customer: (ctx) => {
    const id = String(ctx.args.customer_id).toUpperCase();
    const total = num(ctx, "order_total");
    const c = tables(ctx).customers[id];
    if (!c)
      return {
        customer_status: "unknown",
        customer_tier: "none",
        approved: false,
        message: `Customer ${id} not found`,
      };
    // The table's status "review" is deliberately not consulted: upstream's logic ignores it (CUST010).
    if (c.status === "blocked")
      return {
        customer_status: "blocked",
        customer_tier: c.tier,
        approved: false,
        reason: "Customer account is blocked",
      };
    if (c.fraud_score > 0.3)
      return { customer_status: "review_required", customer_tier: c.tier, approved: false, reason: "High fraud score" };
    if (c.total_orders < 5 && total > 500)
      return {
        customer_status: "review_required",
        customer_tier: c.tier,
        approved: false,
        reason: "New customer with high-value order",
      };
    return {
      customer_status: "approved",
      customer_tier: c.tier,
      approved: true,
      customer_name: c.name,
      total_orders: c.total_orders,
    };
  },
  calculate_shipping: (ctx) => {
    const zip = String(ctx.args.destination_zip).padStart(5, "0").slice(0, 5);
    const weight = num(ctx, "package_weight");
    const speed = String(ctx.args.shipping_speed);
    const t = tables(ctx);
    const rate = t.shipping_rates[speed];
    if (!rate)
      return { shipping_cost: 0, delivery_days: 0, success: false, message: `Unknown shipping speed: ${speed}` };
    const remote = t.remote_zip_prefixes.includes(zip.slice(0, 3));
    let cost = rate.base + weight * rate.per_lb;
    if (remote) cost *= 1.5;
    return {
      shipping_cost: round2(cost),
      delivery_days: remote ? rate.days_max + 2 : rate.days_min,
      shipping_speed: speed,
      is_remote_area: remote,
      success: true,
    };
  },
  make_fulfillment_decision: (ctx) => {
    const inv = String(ctx.args.inventory_status);
    const cust = String(ctx.args.customer_status);
    const priority = String(ctx.args.order_priority);
    const cost = num(ctx, "shipping_cost");
    if (cust === "blocked")
      return {
        decision: "reject",
        reason: "Customer account is blocked",
        action_required: ["notify_customer", "flag_account"],
      };
    if (cust === "review_required")
      return { decision: "manual_review", reason: "Customer requires review", action_required: ["assign_to_reviewer"] };
    if (inv === "out_of_stock" || inv === "product_not_found" || inv === "insufficient_stock")
      return {
        decision: "backorder",
        reason: `Inventory status: ${inv}`,
        action_required: ["notify_customer", "create_backorder"],
      };
    if (cust === "approved" && (priority === "urgent" || inv === "in_stock"))
      return {
        decision: "fulfill_immediately",
        reason: "Approved customer, stock available",
        action_required: ["pick_and_pack", "ship"],
        shipping_cost: cost,
      };
    if (cust === "approved" && inv === "low_stock")
      return {
        decision: "fulfill_delayed",
        reason: "Low stock; ship within 3-5 days",
        action_required: ["reserve_stock", "schedule_shipment"],
        shipping_cost: cost,
      };
    return { decision: "manual_review", reason: "No automatic rule applies", action_required: ["assign_to_reviewer"] };
  },
};
