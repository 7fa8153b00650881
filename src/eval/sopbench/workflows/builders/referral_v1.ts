import { input, inputs, result, WorkflowBuilder } from "../dsl.js";

/** SOP §5.5: four indicator counts, severity-first choice (tie order AAC > MAC > PO), action from the guidelines. */
export function referralV1() {
  const b = new WorkflowBuilder(
    "referral_abuse_detection_v1",
    "SOP-Bench referral abuse (v1): score four violation patterns from account and traffic data; the enforcement guidelines map the violation to an action.",
  );
  b.start(inputs(["account_id"]));
  const account_id = input("account_id");
  b.tool("account", "investigate_account", { account_id });
  b.tool("traffic", "analyze_traffic_patterns", { account_id });
  b.tool("guidelines", "determine_enforcement_action", { account_id });
  b.code(
    "decide",
    "Classify the violation",
    {
      a: result("account"),
      tr: result("traffic"),
      guide: [...result("guidelines"), "enforcement_guidelines"],
    },
    `
const n = (...xs) => xs.filter(Boolean).length;

function main({ a, tr, guide }) {
  const ca = Number(a.connected_accounts);
  const q = String(tr.referral_source_quality);
  const aac = n(!a.address_validity, a.email_pattern_suspicious === true, !a.website_verified, ca >= 15, !a.login_geographic_consistency);
  const mac = n(!a.website_verified, q === "Low" || q === "Medium", tr.order_patterns_suspicious === true, Number(tr.click_through_rate) > 0.4);
  const po = n(tr.payment_method_shared === true, ca > 0 && ca < 15, tr.order_patterns_suspicious === true, q === "High");
  const nv = n(
    a.address_validity === true,
    a.email_pattern_suspicious === false,
    a.website_verified === true,
    a.login_geographic_consistency === true,
    tr.payment_method_shared === false,
    tr.order_patterns_suspicious === false,
  );
  let violation;
  if (aac >= 3 || mac >= 3) violation = aac >= 3 && (aac >= mac || mac < 3) ? "Abusive Account Creation" : "Misleading Ad Copy";
  else if (po >= 3 || nv >= 4) violation = po >= 3 && (po >= nv || nv < 4) ? "Personal Orders (Related)" : "No Violation";
  return { enforcement_action: violation ? String(guide[violation]) : "Inconclusive" };
}`,
    { enforcement_action: "string" },
  );
  b.end("end", { enforcement_action: ["decide", "enforcement_action"] });
  for (const t of ["account", "traffic", "guidelines"]) b.edge("start", t).edge(t, "decide");
  b.edge("decide", "end");
  return b.build();
}
