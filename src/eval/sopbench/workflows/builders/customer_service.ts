import { input, inputs, result, WorkflowBuilder } from "../dsl.js";

/** SOP §5.1–5.7: validate → authenticate → session → account status → outage → diagnostics → fix → escalate. */
export function customerService() {
  const b = new WorkflowBuilder(
    "customer_service",
    "SOP-Bench customer service: resolve a connectivity complaint through the SOP's tools (RESOLVED iff post-fix latency ≤ 100 ms and jitter ≤ 30 ms).",
  );
  b.start(inputs(["account_id", "service_area_code", "service_type", "subscribed_bandwidth"]));
  const account_id = input("account_id");
  const c = b.constants("constants", { yes: true, no: false });

  b.tool("validate", "validateAccount", { account_id }, { onError: "branch" });
  b.ifElse("is_valid", "Account id valid?", [
    { id: "true", when: [{ selector: [...result("validate"), "is account id valid"], op: "is", value: "true" }] },
  ]);
  b.tool("auth", "getAuthenticationDetails", { account_id, is_account_id_valid: c("yes") });
  const records = [...result("auth"), "authentication records"] as const;
  b.ifElse("is_authenticated", "Authenticated?", [
    {
      id: "true",
      or: true,
      when: [
        { selector: [...records, "login_status"], op: "is", value: "SUCCESS" },
        { selector: [...records, "account_recovery_status"], op: "is", value: "SUCCESS" },
      ],
    },
  ]);
  b.tool("session", "createSessionAndOpenTicket", {
    account_id,
    is_account_id_valid: c("yes"),
    is_authenticated: c("yes"),
  });
  const session_token = [...result("session"), "session token"] as [string, ...string[]];
  b.tool("status", "checkAccountStatus", { account_id, session_token });
  b.code(
    "classify_status",
    "Classify account status",
    { status: result("status") },
    `
function main({ status }) {
  const s = String(status["account status"]).toUpperCase();
  if (s === "TERMINATED") return { route: "failed" };
  if (s !== "SUSPENDED") return { route: "active" };
  // §5.4: only a non-payment suspension can be lifted (after the payment check).
  const nonPayment = /payment|overdue|non-payment|billing/.test(String(status.reason).toLowerCase());
  return { route: nonPayment ? "suspended_nonpayment" : "failed" };
}`,
    { route: "string" },
  );
  b.ifElse("route_status", "Account status route", [
    { id: "failed", when: [{ selector: ["classify_status", "route"], op: "is", value: "failed" }] },
    { id: "suspended", when: [{ selector: ["classify_status", "route"], op: "is", value: "suspended_nonpayment" }] },
  ]);
  b.tool("payment", "checkPaymentStatus", { account_id, session_token });
  b.tool("suspension", "checkAccountSuspensionStatus", { account_id, session_token });
  b.code(
    "suspension_lifted",
    "Suspension lifted?",
    { s: result("suspension") },
    `
function main({ s }) {
  return { active: String(s["account suspension status"]).toUpperCase() === "ACTIVE" };
}`,
    { active: "boolean" },
  );
  b.ifElse("is_active", "Active again?", [
    { id: "true", when: [{ selector: ["suspension_lifted", "active"], op: "is", value: "true" }] },
  ]);
  b.tool("outage", "checkServiceAreaOutage", {
    account_id,
    session_token,
    service_area_code: input("service_area_code"),
  });
  b.ifElse("has_outage", "Outage in the area?", [
    { id: "true", when: [{ selector: [...result("outage"), "outage detected"], op: "is", value: "true" }] },
  ]);
  b.tool("diagnostics", "performTechnicalDiagnostics", {
    account_id,
    session_token,
    service_type: input("service_type"),
    subscribed_bandwidth: input("subscribed_bandwidth"),
  });
  b.tool("troubleshoot", "executeTroubleshooting", {
    account_id,
    session_token,
    root_causes: [...result("diagnostics"), "root causes"],
  });
  b.code(
    "improved",
    "Metrics within thresholds?",
    { fix: result("troubleshoot") },
    `
function main({ fix }) {
  const m = fix["updated service metrics"] || {};
  return { improved: Number(m.latency) <= 100 && Number(m.jitter) <= 30 };
}`,
    { improved: "boolean" },
  );
  b.ifElse("is_improved", "Improved?", [
    { id: "true", when: [{ selector: ["improved", "improved"], op: "is", value: "true" }] },
  ]);
  b.tool("escalate", "createEscalation", {
    session_token,
    ticket_id: [...result("session"), "ticket identifer"],
    metrics_improved_post_troubleshooting: c("no"),
    escalation_required: c("yes"),
  });

  b.template("failed", "FAILED", "FAILED");
  b.template("pending", "PENDING_ACTION", "PENDING_ACTION");
  b.template("resolved", "RESOLVED", "RESOLVED");
  b.template("escalated", "ESCALATED", "ESCALATED");
  b.aggregate("status_out", "Resolution status", "string", [
    ["failed", "output"],
    ["pending", "output"],
    ["resolved", "output"],
    ["escalated", "output"],
  ]);
  b.end("end", { final_resolution_status: ["status_out", "output"] });

  b.chain("start", "constants", "validate")
    .edge("validate", "failed", "fail-branch")
    .edge("validate", "is_valid")
    .edge("is_valid", "auth", "true")
    .edge("is_valid", "failed", "false")
    .edge("auth", "is_authenticated")
    .edge("is_authenticated", "session", "true")
    .edge("is_authenticated", "failed", "false")
    .chain("session", "status", "classify_status", "route_status")
    .edge("route_status", "failed", "failed")
    .edge("route_status", "payment", "suspended")
    .edge("route_status", "outage", "false")
    .chain("payment", "suspension", "suspension_lifted", "is_active")
    .edge("is_active", "outage", "true")
    .edge("is_active", "failed", "false")
    .edge("outage", "has_outage")
    .edge("has_outage", "pending", "true")
    .edge("has_outage", "diagnostics", "false")
    .chain("diagnostics", "troubleshoot", "improved", "is_improved")
    .edge("is_improved", "resolved", "true")
    .edge("is_improved", "escalate", "false")
    .chain("escalate", "escalated");
  for (const t of ["failed", "pending", "resolved", "escalated"]) b.edge(t, "status_out");
  b.edge("status_out", "end");
  return b.build();
}
