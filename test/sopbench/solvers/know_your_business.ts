import { type EnvOptions, parsePyLiteral, type TaskInput } from "../../../src/eval/sopbench/index.js";
import { obj, type Tools, tools } from "./client.js";

const DAY = 86_400_000;
const STOP = new Set(["ltd", "inc", "llc", "co", "corp", "group", "the", "and", "of"]);

/**
 * The SOP's §5.1.1 typo-vs-fabrication call is judgment (upstream issue #8); this solver's stand-in is a
 * crude heuristic: profile fields that are incomplete (no street number or no city) or unrelated to the name
 * (website/email sharing no 4-letter stem with it) → "awaiting information". Deterministic checks: TIN must
 * be "TIN" + 6 digits, not all the same digit; licence expiry more than 42 days away from the registry's
 * date of entry → escalate; any sanctions/PEP/shell/offshore/bank flag → escalate; else approve.
 */
export async function knowYourBusiness(task: TaskInput, options: EnvOptions = {}, using?: Tools) {
  const t = using ?? tools(task.domain, options);
  const id = task.inputs.business_id as string;
  const out = (s: string) => ({ escalation_status: s });
  const profile = obj(await t.call("getBusinessProfile", { business_id: id }));
  const reg = obj(
    await t.call("verifyBusinessRegistration", {
      business_id: id,
      registration_number: task.inputs.registration_number,
      business_registration_state: task.inputs.business_registration_state,
      license_number: task.inputs.license_number,
    }),
  );
  const ubos = parsePyLiteral(String(obj(await t.call("getOwnershipData", { business_id: id })).ubo_list));
  const ubo = obj(await t.call("verifyUBO", { business_id: id, ubo_list: ubos }));
  const screen = obj(await t.call("performSanctionsCheck", { business_id: id, ubo_list: ubos }));
  await t.call("getBankData", { business_id: id });
  const bank = obj(
    await t.call("verifyBankAccount", {
      business_id: id,
      bank_account_number: String(task.inputs.bank_account_number),
      banking_institution: task.inputs.banking_institution,
      bank_account_type: task.inputs.bank_account_type,
    }),
  );
  await t.call("calculateRiskScore", { business_id: id });

  const risky =
    ubo.shell_company_suspected === true ||
    ubo.offshore_jurisdiction_flag === true ||
    JSON.stringify(screen.sanction_check_status).match(/Matched|Pending|Hit/i) !== null ||
    JSON.stringify(screen.pep_status).includes('"Yes"') ||
    bank.bank_verification_status !== "Verified";
  if (risky && irregularProfile(profile)) return out("awaiting information");

  const tin = String(profile.tax_id);
  const tinOk = /^tin\d{6}$/i.test(tin) && new Set(tin.slice(3)).size > 1;
  const gap = Math.abs(Date.parse(String(reg.license_expiry_date)) - Date.parse(String(reg.date_of_entry))) / DAY;
  if (!tinOk || gap > 42 || risky) return out("escalate");
  return out("approve");
}

function stems(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[^a-z]+/)
    .filter((w) => w.length >= 4 && !STOP.has(w))
    .map((w) => w.slice(0, 4));
}

function irregularProfile(p: Record<string, unknown>): boolean {
  const address = String(p.business_address);
  const complete = /^\d+\s+\S+.*,\s*\S+/.test(address);
  const s = stems(String(p.business_name));
  const related = (v: unknown) => {
    const core = String(v)
      .toLowerCase()
      .replace(/^(www\.|w\.)/, "");
    return s.some((x) => core.includes(x));
  };
  return !complete || !related(p.business_website) || !related(p.business_email);
}
