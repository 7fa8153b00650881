import type { EnvOptions, TaskInput } from "../../../src/eval/sopbench/index.js";
import { obj, type Tools, tools } from "./client.js";

/** SOP §5.1–5.7 over the tools. Thresholds: latency > 100 ms, jitter > 30 ms, bandwidth below plan. */
export async function customerService(task: TaskInput, options: EnvOptions = {}, using?: Tools) {
  const t = using ?? tools(task.domain, options);
  const id = task.inputs.account_id as string;
  const done = (status: string) => ({ final_resolution_status: status });

  const v = await t.tryCall("validateAccount", { account_id: id });
  if (v instanceof Error || obj(v)["is account id valid"] !== true) return done("FAILED");

  const auth = obj(
    obj(await t.call("getAuthenticationDetails", { account_id: id, is_account_id_valid: true }))[
      "authentication records"
    ],
  );
  const authenticated = auth.login_status === "SUCCESS" || auth.account_recovery_status === "SUCCESS";
  if (!authenticated) return done("FAILED");
  const session = obj(
    await t.call("createSessionAndOpenTicket", { account_id: id, is_account_id_valid: true, is_authenticated: true }),
  );
  const token = session["session token"] as string;
  const ticket = session["ticket identifer"] as string;
  const withSession = { account_id: id, session_token: token };

  const status = obj(await t.call("checkAccountStatus", withSession));
  const accountStatus = String(status["account status"]).toUpperCase();
  if (accountStatus === "TERMINATED") return done("FAILED");
  if (accountStatus === "SUSPENDED") {
    const reason = String(status.reason).toLowerCase();
    const nonPayment = /payment|overdue|non-payment|billing/.test(reason);
    if (!nonPayment) return done("FAILED");
    await t.call("checkPaymentStatus", withSession);
    const susp = obj(await t.call("checkAccountSuspensionStatus", withSession));
    if (String(susp["account suspension status"]).toUpperCase() !== "ACTIVE") return done("FAILED");
  }

  const outage = obj(
    await t.call("checkServiceAreaOutage", { ...withSession, service_area_code: task.inputs.service_area_code }),
  );
  if (outage["outage detected"] === true) return done("PENDING_ACTION");

  const diag = obj(
    await t.call("performTechnicalDiagnostics", {
      ...withSession,
      service_type: task.inputs.service_type,
      subscribed_bandwidth: task.inputs.subscribed_bandwidth,
    }),
  );
  const rootCauses = diag["root causes"] as string[];
  const fix = obj(await t.call("executeTroubleshooting", { ...withSession, root_causes: rootCauses }));
  const after = obj(fix["updated service metrics"]);
  const improved = Number(after.latency) <= 100 && Number(after.jitter) <= 30;
  if (improved) return done("RESOLVED");
  await t.call("createEscalation", {
    session_token: token,
    ticket_id: ticket,
    metrics_improved_post_troubleshooting: false,
    escalation_required: true,
  });
  return done("ESCALATED");
}
