import type { RuleHandler } from "./types.js";

/**
 * traffic_spoofing: the lookups without `require_truthy` still check presence (`is not None`), so 0 passes but
 * null fails.
 */
const present: RuleHandler = ({ args, binding, fail, generic }) => {
  for (const a of binding?.args ?? [])
    if (args[a] === null || args[a] === undefined) fail("Missing required parameters");
  return generic();
};

export const trafficRules: Record<string, RuleHandler> = {
  AnalyzeTrafficPatterns: present,
  ValidateReferralSources: present,
  CalculateRiskScore: present,
};
