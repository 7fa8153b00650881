/**
 * What a faithful SOP follower can score strictly on each labelled set (NOTES.md §1.5, re-measured by the
 * reference solvers in test/sopbench). Report every workflow score next to these.
 */
export interface Ceiling {
  rows: number;
  /** Reachable strict-correct rows; undefined where the labels need judgment no rule reproduces. */
  reachable?: number;
  why: string;
}

export const CEILINGS: Record<string, Ceiling> = {
  customer_service: { rows: 156, reachable: 156, why: "RESOLVED iff post-fix latency ≤ 100 ms and jitter ≤ 30 ms" },
  dangerous_goods: {
    rows: 274,
    reachable: 274,
    why: "needs '≥ 2 missing → Unable to Decide' (the SOP says > 2: 269/274)",
  },
  know_your_business: {
    rows: 90,
    why: "typo-vs-fabrication is judgment (issue #8); only the 40 rows without risk signals are rule-determined",
  },
  order_fulfillment: { rows: 30, reachable: 26, why: "ORD008/010/026/028 labels contradict the prescribed tool chain" },
  patient_intake: { rows: 66, reachable: 66, why: "labels are the six tool outputs" },
  referral_abuse_detection_v1: { rows: 200, reachable: 200, why: "severity-first rule as worded at 2fdce4c" },
  referral_abuse_detection_v2: {
    rows: 200,
    reachable: 200,
    why: "with the clock pinned on/after 2025-12 (199 at 2025-10-01)",
  },
  traffic_spoofing_detection: {
    rows: 200,
    reachable: 161,
    why: "39 Medium rows are 'Warning Issued' by investigator discretion (issue #5)",
  },
  video_annotation: {
    rows: 125,
    reachable: 125,
    why: "needs the semantic environment checks (urban, daylight, front camera)",
  },
  warehouse_package_inspection: {
    rows: 150,
    reachable: 142,
    why: "csv-backed barcode/damage; 8 problem-free rows are labelled Returned to Vendor (≈80 with the original mocks)",
  },
};
