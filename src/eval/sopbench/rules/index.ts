import { customerServiceRules } from "./customer_service.js";
import { kybRules } from "./know_your_business.js";
import { orderFulfillmentRules } from "./order_fulfillment.js";
import { trafficRules } from "./traffic_spoofing_detection.js";
import type { RuleHandler } from "./types.js";
import { warehouseRules } from "./warehouse_package_inspection.js";

/** Hand-written behaviour for the tools whose binding is a rule, or a lookup with an extra precondition. */
export const RULES: Record<string, Record<string, RuleHandler>> = {
  customer_service: customerServiceRules,
  know_your_business: kybRules,
  order_fulfillment: orderFulfillmentRules,
  traffic_spoofing_detection: trafficRules,
  warehouse_package_inspection: warehouseRules,
};
