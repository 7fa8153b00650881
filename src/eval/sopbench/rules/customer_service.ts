import { parsePyLiteral } from "../pyliteral.js";
import type { RuleHandler } from "./types.js";

const ACCOUNT_ID = /^[A-Z]{3}-\d{5}$/;

/** customer_service: the preconditions tool_bindings.json states on top of the plain lookups. */
export const customerServiceRules: Record<string, RuleHandler> = {
  validateAccount: ({ args, rowsWhere }) => {
    const id = args.account_id;
    if (rowsWhere({ account_id: id }).length === 0)
      return { "is account id valid": false, reason: `Account ID ${String(id)} not found in records` };
    const valid = typeof id === "string" && ACCOUNT_ID.test(id);
    return {
      "is account id valid": valid,
      reason: valid ? "The account ID conforms to the organization's standard pattern" : "Invalid account ID format",
    };
  },
  getAuthenticationDetails: ({ args, fail, generic }) => {
    if (args.is_account_id_valid !== true) fail("Invalid account ID provided");
    return generic();
  },
  createSessionAndOpenTicket: ({ args, fail, generic }) => {
    if (args.is_account_id_valid !== true || args.is_authenticated !== true)
      fail("Account validation or authentication failed");
    return generic();
  },
  executeTroubleshooting: ({ args, fail, generic, rowsWhere }) => {
    let given = args.root_causes;
    if (typeof given === "string") {
      try {
        given = parsePyLiteral(given);
      } catch {
        fail(`Incorrect root causes: ${given as string}`);
      }
    }
    if (!Array.isArray(given) || given.length === 0) fail("Missing required parameters");
    const row = rowsWhere({ account_id: args.account_id, session_token: args.session_token })[0];
    if (row) {
      const cell = row.root_causes;
      const actual = typeof cell === "string" ? parsePyLiteral(cell) : [];
      if (JSON.stringify(actual) !== JSON.stringify(given)) fail(`Incorrect root causes: ${JSON.stringify(given)}`);
    }
    return generic();
  },
};
