import type { EnvOptions, TaskInput } from "../../../src/eval/sopbench/index.js";
import { obj, type Tools, tools } from "./client.js";

/** SOP §5.5: four indicator scores, severity-first choice, tie order AAC > MAC > PO. */
export async function referralV1(task: TaskInput, options: EnvOptions = {}, using?: Tools) {
  const t = using ?? tools(task.domain, options);
  const id = task.inputs.account_id;
  const a = obj(await t.call("investigate_account", { account_id: id }));
  const tr = obj(await t.call("analyze_traffic_patterns", { account_id: id }));
  const guide = obj(obj(await t.call("determine_enforcement_action", { account_id: id })).enforcement_guidelines);
  const n = (...xs: boolean[]) => xs.filter(Boolean).length;
  const ca = Number(a.connected_accounts);
  const q = String(tr.referral_source_quality);
  const aac = n(
    !a.address_validity,
    a.email_pattern_suspicious === true,
    !a.website_verified,
    ca >= 15,
    !a.login_geographic_consistency,
  );
  const mac = n(
    !a.website_verified,
    q === "Low" || q === "Medium",
    tr.order_patterns_suspicious === true,
    Number(tr.click_through_rate) > 0.4,
  );
  const po = n(
    tr.payment_method_shared === true,
    ca > 0 && ca < 15,
    tr.order_patterns_suspicious === true,
    q === "High",
  );
  const nv = n(
    a.address_validity === true,
    a.email_pattern_suspicious === false,
    a.website_verified === true,
    a.login_geographic_consistency === true,
    tr.payment_method_shared === false,
    tr.order_patterns_suspicious === false,
  );
  let violation: string | undefined;
  if (aac >= 3 || mac >= 3)
    violation = aac >= 3 && (aac >= mac || mac < 3) ? "Abusive Account Creation" : "Misleading Ad Copy";
  else if (po >= 3 || nv >= 4)
    violation = po >= 3 && (po >= nv || nv < 4) ? "Personal Orders (Related)" : "No Violation";
  const action = violation ? String(guide[violation]) : "Inconclusive";
  return { enforcement_action: action };
}
