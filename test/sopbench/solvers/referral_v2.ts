import type { EnvOptions, TaskInput } from "../../../src/eval/sopbench/index.js";
import { obj, type Tools, tools } from "./client.js";

const DAY = 86_400_000;
const CLOSURE_TYPES = new Set(["Temporal Fraud", "Abusive Account Creation", "Misleading Ad Copy"]);
const ACTIONS: Record<string, Record<string, string>> = {
  closure: {
    CRITICAL: "Permanent Account Closure",
    HIGH: "Account Closure",
    MEDIUM: "Temporary Suspension",
    LOW: "Warning Issued",
  },
  personal: { CRITICAL: "Account Closure", HIGH: "Temporary Suspension", MEDIUM: "Warning Issued", LOW: "No Action" },
};

/** SOP §5.7 steps 1–4; "within 90 days" is measured from the environment's pinned clock. */
export async function referralV2(task: TaskInput, options: EnvOptions = {}, using?: Tools) {
  const t = using ?? tools(task.domain, options);
  const id = task.inputs.account_id;
  const a = obj(await t.call("investigate_account", { account_id: id }));
  const tr = obj(await t.call("analyze_traffic_patterns", { account_id: id }));
  const tp = obj(await t.call("analyze_temporal_patterns", { account_id: id }));
  const h = obj(await t.call("get_violation_history", { account_id: id }));
  const f = obj(await t.call("get_financial_impact", { account_id: id }));
  await t.call("determine_enforcement_action", { account_id: id });

  const n = (...xs: [boolean, number?][]) => xs.reduce((s, [c, w]) => s + (c ? (w ?? 1) : 0), 0);
  const ca = Number(a.connected_accounts);
  const age = Number(a.account_age_days);
  const q = String(tr.referral_source_quality);
  const burst = tp.registration_burst_detected === true;
  const off = Number(tp.off_hours_activity_percentage);
  const spike = tp.activity_spike_detected === true;
  const complaints = Number(f.customer_complaint_count);
  const orders = tr.order_patterns_suspicious === true;
  const scores: [string, number, number][] = [
    ["Temporal Fraud", n([burst, 2], [off > 60], [spike], [age < 30 && ca >= 15, 2]), 4],
    [
      "Abusive Account Creation",
      n(
        [!a.address_validity],
        [a.email_pattern_suspicious === true],
        [!a.website_verified],
        [ca >= 15],
        [!a.login_geographic_consistency],
        [burst, 2],
        [age < 30],
      ),
      4,
    ],
    [
      "Misleading Ad Copy",
      n(
        [!a.website_verified],
        [q === "Low" || q === "Medium"],
        [orders],
        [Number(tr.click_through_rate) > 0.4],
        [spike],
        [complaints > 5],
      ),
      4,
    ],
    [
      "Personal Orders (Related)",
      n([tr.payment_method_shared === true], [ca > 0 && ca < 15], [orders], [q === "High"], [off < 30]),
      3,
    ],
    [
      "No Violation",
      n(
        [a.address_validity === true],
        [a.email_pattern_suspicious === false],
        [a.website_verified === true],
        [a.login_geographic_consistency === true],
        [tr.payment_method_shared === false],
        [!orders],
        [!burst],
        [off < 30],
        [complaints <= 2],
      ),
      6,
    ],
  ];
  // Highest qualifying score; ties keep list order (Temporal > AAC > MAC > PO, then No Violation).
  let best: [string, number] | undefined;
  for (const [name, score, threshold] of scores)
    if (score >= threshold && (!best || score > best[1])) best = [name, score];
  const prev = Number(h.previous_violations_count);
  if (!best) return { final_decision: prev > 0 ? "Manual Review Required" : "Inconclusive" };
  if (best[0] === "No Violation") return { final_decision: "No Action" };

  const revenue = Number(tr.revenue_amount);
  const last = h.last_violation_date ? Date.parse(String(h.last_violation_date)) : Number.NaN;
  const recent = !Number.isNaN(last) && (t.now().getTime() - last) / DAY <= 90;
  const risk =
    revenue > 5000 || prev >= 2 || (prev >= 1 && h.warning_issued === true && recent) || complaints > 10
      ? "CRITICAL"
      : (revenue > 1000 && revenue <= 5000) || prev === 1 || ca >= 25 || Number(f.refund_rate_percentage) > 40
        ? "HIGH"
        : (revenue > 100 && revenue <= 1000) || h.account_rehabilitation_status === "Probation" || (ca >= 15 && ca < 25)
          ? "MEDIUM"
          : "LOW";
  const table = CLOSURE_TYPES.has(best[0]) ? ACTIONS.closure : ACTIONS.personal;
  return { final_decision: (table as Record<string, string>)[risk] };
}
