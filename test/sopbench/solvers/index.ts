import type { EnvOptions, TaskInput } from "../../../src/eval/sopbench/index.js";
import type { Tools } from "./client.js";
import { customerService } from "./customer_service.js";
import { dangerousGoods } from "./dangerous_goods.js";
import { knowYourBusiness } from "./know_your_business.js";
import { orderFulfillment } from "./order_fulfillment.js";
import { patientIntake } from "./patient_intake.js";
import { referralV1 } from "./referral_v1.js";
import { referralV2 } from "./referral_v2.js";
import { trafficSpoofing } from "./traffic_spoofing.js";
import { videoAnnotation } from "./video_annotation.js";
import { warehouse } from "./warehouse.js";

/** `using` swaps the in-process ToolService for another transport (the MCP test passes an MCP client). */
export type ReferenceSolver = (
  task: TaskInput,
  options?: EnvOptions,
  using?: Tools,
) => Promise<Record<string, unknown>>;

/** Hand-written SOP followers that use only the tools (and the task inputs), one per domain. */
export const REFERENCE_SOLVERS: Record<string, ReferenceSolver> = {
  customer_service: customerService,
  dangerous_goods: dangerousGoods,
  know_your_business: knowYourBusiness,
  order_fulfillment: orderFulfillment,
  patient_intake: patientIntake,
  referral_abuse_detection_v1: referralV1,
  referral_abuse_detection_v2: referralV2,
  traffic_spoofing_detection: trafficSpoofing,
  video_annotation: videoAnnotation,
  warehouse_package_inspection: warehouse,
};
