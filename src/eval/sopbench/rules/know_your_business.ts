import { type PyValue, parsePyLiteral } from "../pyliteral.js";
import type { RuleHandler } from "./types.js";

function asList(v: unknown): PyValue[] {
  const parsed = typeof v === "string" ? parsePyLiteral(v) : (v as PyValue);
  if (!Array.isArray(parsed)) throw new Error("expected a list");
  return parsed;
}

/** know_your_business.performSanctionsCheck: screens only the FIRST UBO, as upstream does. */
export const kybRules: Record<string, RuleHandler> = {
  performSanctionsCheck: ({ args, fail, rowsWhere }) => {
    const row = rowsWhere({ business_id: args.business_id })[0];
    if (!row) return fail(`Business ${String(args.business_id)} not found`);
    let ubos: PyValue[];
    try {
      ubos = asList(args.ubo_list);
    } catch (e) {
      return fail(`Invalid ubo_list: ${(e as Error).message}`);
    }
    const first = ubos[0];
    const name = first && typeof first === "object" && !Array.isArray(first) ? first.name : undefined;
    if (typeof name !== "string") return fail("Invalid ubo_list: first entry has no name");
    const sanctions = asList(row.sanction_check_status).filter((e) => (e as Record<string, PyValue>)?.name === name);
    const pep = asList(row.pep_status).filter((e) => (e as Record<string, PyValue>)?.name === name);
    if (sanctions.length === 0 || pep.length === 0) fail(`Name '${name}' not found in Sanctions/PEP database.`);
    return { sanction_check_status: sanctions, pep_status: pep };
  },
};
