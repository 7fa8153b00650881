import { input, inputs, result, WorkflowBuilder } from "../dsl.js";

const TOOLS = [
  ["account", "investigate_account"],
  ["traffic", "analyze_traffic_patterns"],
  ["temporal", "analyze_temporal_patterns"],
  ["history", "get_violation_history"],
  ["financial", "get_financial_impact"],
  ["guidelines", "determine_enforcement_action"],
] as const;

/**
 * SOP §5.7 steps 1–4: weighted pattern scores (highest qualifying wins, ties in list order), then a risk level,
 * then the action table of the violation's family. "Within 90 days" is measured from the run's clock
 * (sys.timestamp), which the benchmark pins.
 */
export function referralV2() {
  const b = new WorkflowBuilder(
    "referral_abuse_detection_v2",
    "SOP-Bench referral abuse (v2): weighted violation scores, risk level from revenue/history/complaints, action by violation family.",
  );
  b.start(inputs(["account_id"]));
  for (const [id, tool] of TOOLS) b.tool(id, tool, { account_id: input("account_id") });
  b.code(
    "decide",
    "Violation, risk and action",
    {
      a: result("account"),
      tr: result("traffic"),
      tp: result("temporal"),
      h: result("history"),
      f: result("financial"),
      now: ["sys", "timestamp"],
    },
    `
const DAY = 86400000;
const CLOSURE_TYPES = ["Temporal Fraud", "Abusive Account Creation", "Misleading Ad Copy"];
const ACTIONS = {
  closure: { CRITICAL: "Permanent Account Closure", HIGH: "Account Closure", MEDIUM: "Temporary Suspension", LOW: "Warning Issued" },
  personal: { CRITICAL: "Account Closure", HIGH: "Temporary Suspension", MEDIUM: "Warning Issued", LOW: "No Action" },
};
// Sum of weights (default 1) of the indicators that hold.
const n = (...xs) => xs.reduce((s, [c, w]) => s + (c ? (w === undefined ? 1 : w) : 0), 0);

function main({ a, tr, tp, h, f, now }) {
  const ca = Number(a.connected_accounts);
  const age = Number(a.account_age_days);
  const q = String(tr.referral_source_quality);
  const burst = tp.registration_burst_detected === true;
  const off = Number(tp.off_hours_activity_percentage);
  const spike = tp.activity_spike_detected === true;
  const complaints = Number(f.customer_complaint_count);
  const orders = tr.order_patterns_suspicious === true;
  const scores = [
    ["Temporal Fraud", n([burst, 2], [off > 60], [spike], [age < 30 && ca >= 15, 2]), 4],
    ["Abusive Account Creation", n([!a.address_validity], [a.email_pattern_suspicious === true], [!a.website_verified], [ca >= 15], [!a.login_geographic_consistency], [burst, 2], [age < 30]), 4],
    ["Misleading Ad Copy", n([!a.website_verified], [q === "Low" || q === "Medium"], [orders], [Number(tr.click_through_rate) > 0.4], [spike], [complaints > 5]), 4],
    ["Personal Orders (Related)", n([tr.payment_method_shared === true], [ca > 0 && ca < 15], [orders], [q === "High"], [off < 30]), 3],
    ["No Violation", n(
      [a.address_validity === true],
      [a.email_pattern_suspicious === false],
      [a.website_verified === true],
      [a.login_geographic_consistency === true],
      [tr.payment_method_shared === false],
      [!orders],
      [!burst],
      [off < 30],
      [complaints <= 2],
    ), 6],
  ];
  // Highest qualifying score; ties keep list order.
  let best;
  for (const [name, score, threshold] of scores) if (score >= threshold && (!best || score > best[1])) best = [name, score];
  const prev = Number(h.previous_violations_count);
  if (!best) return { final_decision: prev > 0 ? "Manual Review Required" : "Inconclusive" };
  if (best[0] === "No Violation") return { final_decision: "No Action" };

  const revenue = Number(tr.revenue_amount);
  const last = h.last_violation_date ? Date.parse(String(h.last_violation_date)) : NaN;
  const recent = !Number.isNaN(last) && (now * 1000 - last) / DAY <= 90;
  const risk =
    revenue > 5000 || prev >= 2 || (prev >= 1 && h.warning_issued === true && recent) || complaints > 10
      ? "CRITICAL"
      : (revenue > 1000 && revenue <= 5000) || prev === 1 || ca >= 25 || Number(f.refund_rate_percentage) > 40
        ? "HIGH"
        : (revenue > 100 && revenue <= 1000) || h.account_rehabilitation_status === "Probation" || (ca >= 15 && ca < 25)
          ? "MEDIUM"
          : "LOW";
  const table = CLOSURE_TYPES.includes(best[0]) ? ACTIONS.closure : ACTIONS.personal;
  return { final_decision: table[risk] };
}`,
    { final_decision: "string" },
  );
  b.end("end", { final_decision: ["decide", "final_decision"] });
  for (const [id] of TOOLS) b.edge("start", id).edge(id, "decide");
  b.edge("decide", "end");
  return b.build();
}
