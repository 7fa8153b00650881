import { input, inputs, result, WorkflowBuilder } from "../dsl.js";
import { PY_LITERAL_JS } from "../snippets.js";

/**
 * The SOP's §5.1.1 typo-vs-fabrication call is judgment (upstream issue #8). Stand-in, as in the TS reference
 * solver: with a risk signal, profile fields that are incomplete (no street number or city) or unrelated to the
 * name (website/email sharing no 4-letter stem with it) → "awaiting information". Deterministic checks: TIN must
 * be "TIN" + 6 digits, not all one digit; licence expiry more than 42 days from the registry's date of entry →
 * escalate; any sanctions/PEP/shell/offshore/bank flag → escalate; else approve.
 */
export function knowYourBusiness() {
  const b = new WorkflowBuilder(
    "know_your_business",
    "SOP-Bench know your business: profile, registration, ownership, sanctions and bank checks decide approve / escalate / awaiting information.",
  );
  b.start(
    inputs([
      "business_id",
      "registration_number",
      "business_registration_state",
      "license_number",
      "ubo_list",
      // A numeric cell; the tool wants the account number as a string, which a text input gives.
      "bank_account_number",
      "banking_institution",
      "bank_account_type",
    ]),
  );
  const business_id = input("business_id");
  b.tool("profile", "getBusinessProfile", { business_id });
  b.tool("registration", "verifyBusinessRegistration", {
    business_id,
    registration_number: input("registration_number"),
    business_registration_state: input("business_registration_state"),
    license_number: input("license_number"),
  });
  b.tool("ownership", "getOwnershipData", { business_id });
  b.code(
    "parse_ubos",
    "Parse the UBO list",
    { ubo_list: [...result("ownership"), "ubo_list"] },
    `${PY_LITERAL_JS}
function main({ ubo_list }) {
  return { ubos: parsePy(String(ubo_list)) };
}`,
    { ubos: "array[object]" },
  );
  b.tool("verify_ubo", "verifyUBO", { business_id, ubo_list: ["parse_ubos", "ubos"] });
  b.tool("sanctions", "performSanctionsCheck", { business_id, ubo_list: ["parse_ubos", "ubos"] });
  b.tool("bank_data", "getBankData", { business_id });
  b.tool("bank", "verifyBankAccount", {
    business_id,
    bank_account_number: input("bank_account_number"),
    banking_institution: input("banking_institution"),
    bank_account_type: input("bank_account_type"),
  });
  b.tool("risk_score", "calculateRiskScore", { business_id });
  b.code(
    "decide",
    "Escalation decision",
    {
      profile: result("profile"),
      reg: result("registration"),
      ubo: result("verify_ubo"),
      screen: result("sanctions"),
      bank: result("bank"),
    },
    `
const DAY = 86400000;
const STOP = ["ltd", "inc", "llc", "co", "corp", "group", "the", "and", "of"];

function stems(name) {
  return name.toLowerCase().split(/[^a-z]+/).filter((w) => w.length >= 4 && !STOP.includes(w)).map((w) => w.slice(0, 4));
}

function irregularProfile(p) {
  const complete = /^\\d+\\s+\\S+.*,\\s*\\S+/.test(String(p.business_address));
  const s = stems(String(p.business_name));
  const related = (v) => {
    const core = String(v).toLowerCase().replace(/^(www\\.|w\\.)/, "");
    return s.some((x) => core.includes(x));
  };
  return !complete || !related(p.business_website) || !related(p.business_email);
}

function main({ profile, reg, ubo, screen, bank }) {
  const risky =
    ubo.shell_company_suspected === true ||
    ubo.offshore_jurisdiction_flag === true ||
    /Matched|Pending|Hit/i.test(JSON.stringify(screen.sanction_check_status)) ||
    JSON.stringify(screen.pep_status).includes('"Yes"') ||
    bank.bank_verification_status !== "Verified";
  if (risky && irregularProfile(profile)) return { escalation_status: "awaiting information" };
  const tin = String(profile.tax_id);
  const tinOk = /^tin\\d{6}$/i.test(tin) && new Set(tin.slice(3)).size > 1;
  const gap = Math.abs(Date.parse(String(reg.license_expiry_date)) - Date.parse(String(reg.date_of_entry))) / DAY;
  if (!tinOk || gap > 42 || risky) return { escalation_status: "escalate" };
  return { escalation_status: "approve" };
}`,
    { escalation_status: "string" },
  );
  b.end("end", { escalation_status: ["decide", "escalation_status"] });
  b.chain("start", "profile", "registration", "ownership", "parse_ubos", "verify_ubo", "sanctions").chain(
    "sanctions",
    "bank_data",
    "bank",
    "risk_score",
    "decide",
    "end",
  );
  return b.build();
}
