import type { Workflow } from "../../../../ir/workflow.js";
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

/** The source of each `<domain>.json` reference workflow (see ../dsl.ts for why both exist). */
export const WORKFLOW_BUILDERS: Record<string, () => Workflow> = {
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
