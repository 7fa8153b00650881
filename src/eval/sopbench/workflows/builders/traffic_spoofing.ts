import { input, inputs, text, WorkflowBuilder } from "../dsl.js";

/**
 * SOP §5.6 with its default mapping: High → Account Closure, Medium → Temporary Suspension (the "investigator
 * discretion" Warning is not rule-derivable, upstream issue #5), Low → Warning Issued only with conclusive
 * evidence (a VIOLATION_DETECTED traffic result or a FAILED source check), else No Action.
 */
export function trafficSpoofing() {
  const b = new WorkflowBuilder(
    "traffic_spoofing_detection",
    "SOP-Bench traffic spoofing: investigate, analyse traffic and referral sources, score risk, report evidence, enforce.",
  );
  b.start(
    inputs(
      [
        "partner_id",
        "registered_websites",
        "top_referral_source",
        "violation_type",
        "evidence_collected",
        "risk_level",
      ],
      ["earnings_amount", "engagement_score", "conversion_rate", "bounce_rate", "unattributed_clicks"],
    ),
  );
  b.code(
    "prepare",
    "Split lists, name the violation",
    {
      registered_websites: input("registered_websites"),
      evidence_collected: input("evidence_collected"),
      violation_type: input("violation_type"),
    },
    `
// List cells are comma-separated text. The cell "None" (no violation) reads as empty like pandas' NaN; the
// tools want a non-empty string.
const list = (v) => String(v == null ? "" : v).split(",").map((w) => w.trim()).filter(Boolean);

function main({ registered_websites, evidence_collected, violation_type }) {
  return {
    websites: list(registered_websites),
    evidence: list(evidence_collected),
    violation_type: violation_type == null || violation_type === "" ? "None" : String(violation_type),
  };
}`,
    { websites: "array[string]", evidence: "array[string]", violation_type: "string" },
  );
  const partner_id = input("partner_id");
  const violation_type = ["prepare", "violation_type"] as [string, string];
  b.tool("investigate", "InvestigateViolations", {
    partner_id,
    registered_websites: ["prepare", "websites"],
    earnings_amount: input("earnings_amount"),
  });
  b.tool("traffic", "AnalyzeTrafficPatterns", {
    partner_id,
    engagement_score: input("engagement_score"),
    conversion_rate: input("conversion_rate"),
    bounce_rate: input("bounce_rate"),
  });
  b.tool("sources", "ValidateReferralSources", {
    partner_id,
    unattributed_clicks: input("unattributed_clicks"),
    top_referral_source: input("top_referral_source"),
  });
  b.tool("risk", "CalculateRiskScore", {
    partner_id,
    violation_type,
    engagement_score: input("engagement_score"),
    conversion_rate: input("conversion_rate"),
  });
  b.tool("evidence", "GenerateEvidenceReport", {
    partner_id,
    violation_type,
    evidence_collected: ["prepare", "evidence"],
  });
  b.tool("enforce", "ExecuteEnforcementAction", { partner_id, risk_level: text("risk"), violation_type });
  b.code(
    "decide",
    "Enforcement action",
    { risk: text("risk"), traffic: text("traffic"), sources: text("sources") },
    `
function main({ risk, traffic, sources }) {
  const conclusive = traffic === "VIOLATION_DETECTED" || sources === "FAILED";
  const action =
    risk === "High" ? "Account Closure" : risk === "Medium" ? "Temporary Suspension" : conclusive ? "Warning Issued" : "No Action";
  return { enforcement_action: action };
}`,
    { enforcement_action: "string" },
  );
  b.end("end", { enforcement_action: ["decide", "enforcement_action"] });
  b.chain("start", "prepare", "investigate", "traffic", "sources", "risk", "evidence", "enforce", "decide", "end");
  return b.build();
}
