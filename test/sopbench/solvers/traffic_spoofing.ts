import type { EnvOptions, TaskInput } from "../../../src/eval/sopbench/index.js";
import { type Tools, tools } from "./client.js";

/**
 * SOP §5.6 with its default mapping: High → Account Closure, Medium → Temporary Suspension (the
 * "investigator discretion" Warning is not rule-derivable, upstream issue #5), Low → Warning Issued only with
 * conclusive evidence (a VIOLATION_DETECTED traffic result or a FAILED source check), else No Action.
 */
export async function trafficSpoofing(task: TaskInput, options: EnvOptions = {}, using?: Tools) {
  const t = using ?? tools(task.domain, options);
  const i = task.inputs;
  const pid = i.partner_id;
  // The cell text "None" (no violation) reads as NaN like pandas does; the tools want a non-empty string.
  const violation_type = i.violation_type ?? "None";
  const list = (v: unknown) =>
    String(v ?? "")
      .split(",")
      .map((w) => w.trim())
      .filter(Boolean);
  await t.call("InvestigateViolations", {
    partner_id: pid,
    registered_websites: list(i.registered_websites),
    earnings_amount: i.earnings_amount,
  });
  const traffic = await t.call("AnalyzeTrafficPatterns", {
    partner_id: pid,
    engagement_score: i.engagement_score,
    conversion_rate: i.conversion_rate,
    bounce_rate: i.bounce_rate,
  });
  const sources = await t.call("ValidateReferralSources", {
    partner_id: pid,
    unattributed_clicks: i.unattributed_clicks,
    top_referral_source: i.top_referral_source,
  });
  const risk = String(
    await t.call("CalculateRiskScore", {
      partner_id: pid,
      violation_type,
      engagement_score: i.engagement_score,
      conversion_rate: i.conversion_rate,
    }),
  );
  await t.call("GenerateEvidenceReport", {
    partner_id: pid,
    violation_type,
    evidence_collected: list(i.evidence_collected),
  });
  await t.call("ExecuteEnforcementAction", { partner_id: pid, risk_level: risk, violation_type });
  const conclusive = traffic === "VIOLATION_DETECTED" || sources === "FAILED";
  const action =
    risk === "High"
      ? "Account Closure"
      : risk === "Medium"
        ? "Temporary Suspension"
        : conclusive
          ? "Warning Issued"
          : "No Action";
  return { enforcement_action: action };
}
