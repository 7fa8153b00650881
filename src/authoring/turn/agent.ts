/** The studio's author: the tool-calling agent (react.ts), revising its change while the app's tests fail. */
import type { Workflow } from "../../ir/workflow.js";
import type { ProposalTests } from "../../store/apps.js";
import { type AgentOptions, runAgent } from "../react.js";
import type { Author, TurnRequest } from "./author.js";

/** The agent's options but what the turn gives it: the workflow to edit, the conversation and the tests. */
export type AgentAuthorOptions = Omit<AgentOptions, "workflow" | "history" | "check">;

export function agentAuthor(o: AgentAuthorOptions): Author {
  return async ({ message, history, base, prove }) => {
    const tests = prove ? testsOfChange(prove) : undefined;
    const res = await runAgent(message, {
      ...o,
      workflow: base.workflow,
      history,
      ...(tests ? { check: tests.check } : {}),
    });
    if (!res.updated || !res.workflow) return { reply: res.reply, outcome: res.outcome, notApplied: res.notApplied };
    const known = tests?.of(res.workflow);
    return {
      reply: res.reply,
      workflow: res.workflow,
      ...(known ? { tests: { ...known, revisions: res.revisions } } : {}),
    };
  };
}

/**
 * The agent's test check, keeping the last result: proposed with it when the agent kept that workflow, so the
 * tests are not run again. A change passes when it fails no more cases than the draft did.
 */
function testsOfChange(prove: NonNullable<TurnRequest["prove"]>) {
  let tested: { workflow: Workflow; tests: ProposalTests } | undefined;
  return {
    check: async (workflow: Workflow) => {
      const tests = await prove(workflow);
      tested = { workflow, tests };
      return { ok: tests.failed <= (tests.was?.failed ?? 0), feedback: tests.line };
    },
    of: (workflow: Workflow) => (tested?.workflow === workflow ? tested.tests : undefined),
  };
}
