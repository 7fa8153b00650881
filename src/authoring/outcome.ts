/**
 * What a chat turn actually did, stated from the diff and the checks, not from the model's words: a
 * proposal, a rejected update (with its diagnostics, nothing changed) or no change at all. The same
 * text goes to the user and into the agent's memory of the conversation.
 */
import { type Diagnostic, formatDiagnostic } from "../ir/diagnostics.js";
import type { ChatMessage } from "../ir/services.js";
import type { TurnOutcome } from "../store/apps.js";

export const NOTHING_CHANGED = "Nothing changed.";

export function rejectedOutcome(diagnostics: Diagnostic[]): TurnOutcome {
  const n = diagnostics.filter((d) => d.severity === "error").length;
  return {
    kind: "rejected",
    summary: `The update was rejected (${n} error${n === 1 ? "" : "s"}). ${NOTHING_CHANGED}`,
    diagnostics,
  };
}

/** A change was proposed: its summary and how many errors and warnings the analyser finds in it. */
export function proposedOutcome(
  p: { summary: string; diagnostics: readonly Diagnostic[] },
  proposalId?: string,
): TurnOutcome {
  const errors = p.diagnostics.filter((d) => d.severity === "error").length;
  return {
    kind: "proposed",
    summary: p.summary,
    ...(proposalId ? { proposalId } : {}),
    errors,
    warnings: p.diagnostics.length - errors,
  };
}

/** Words of a message that says the workflow was changed. */
const CLAIM =
  /\b(i(?:'ve| have)?\s+(?:added|removed|changed|updated|created|replaced|renamed|connected|inserted|modified|deleted|set|built|fixed)|(?:has|have) been (?:added|removed|changed|updated|created|replaced|renamed|modified|deleted|fixed)|(?:done|updated|added|removed|changed)[:.!])/i;

export function claimsChange(text: string): boolean {
  return CLAIM.test(text);
}

/**
 * A final message is marked as not applied when the turn changed nothing although it tried (an update was
 * rejected) or the message says something changed.
 */
export function notApplied(outcome: TurnOutcome, reply: string): boolean {
  return outcome.kind === "rejected" || (outcome.kind === "unchanged" && claimsChange(reply));
}

/** The outcome as the text the user and the agent's memory see. */
export function describeOutcome(o: TurnOutcome): string {
  switch (o.kind) {
    case "proposed":
      return `Proposed${o.proposalId ? ` (${o.proposalId})` : ""}, not applied yet: ${o.summary}`;
    case "applied":
      return o.revision !== undefined
        ? `Applied to the draft (revision ${o.revision}): ${o.summary}`
        : `Applied as version ${o.version}: ${o.summary}`;
    case "rejected":
      return [o.summary, ...o.diagnostics.slice(0, 20).map((d) => `  ${formatDiagnostic(d)}`)].join("\n");
    case "unchanged":
      return o.summary;
  }
}

export interface RememberedTurn {
  user: string;
  reply: string;
  outcome?: TurnOutcome;
  /** What became of the proposal later (applied, rejected, undone), if anything. */
  later?: string;
}

/** Earlier turns as messages for the model: what was asked, what it said, and what really happened. */
export function historyMessages(turns: readonly RememberedTurn[]): ChatMessage[] {
  return turns.flatMap((t) => {
    const facts = [
      t.outcome ? `[outcome: ${describeOutcome(t.outcome).split("\n")[0]}]` : "",
      t.later ? `[then: ${t.later}]` : "",
    ].filter(Boolean);
    return [
      { role: "user" as const, content: t.user },
      { role: "assistant" as const, content: [t.reply || "(no reply)", ...facts].join("\n") },
    ];
  });
}
