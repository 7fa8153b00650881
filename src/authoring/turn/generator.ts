/** `weft chat`'s author: the one-shot generator (generate.ts), its answer repaired and retried up to `maxAttempts`. */
import { diffWorkflows } from "../../ir/diff.js";
import { type GenerateOptions, type GenerationResult, generateWorkflow } from "../generate.js";
import { NOTHING_CHANGED, notApplied, rejectedOutcome } from "../outcome.js";
import type { Author } from "./author.js";

export interface GeneratorAuthorOptions
  extends Pick<GenerateOptions, "llm" | "model" | "mode" | "name" | "maxAttempts" | "compact"> {
  /** Sees the generation (its attempts and repairs) as soon as it ends, before anything is proposed. */
  onGenerated?: (r: GenerationResult) => void;
}

export function generatorAuthor({ onGenerated, ...o }: GeneratorAuthorOptions): Author {
  return async ({ message, history, base }) => {
    // An empty draft is generated from nothing; any other is edited.
    const current = base.workflow.nodes.length > 0 ? base.workflow : undefined;
    const r = await generateWorkflow({ ...o, instruction: message, history, current });
    onGenerated?.(r);
    const reply = r.sections?.designPrinciple ?? "";
    if (!r.passed || !r.workflow) {
      const outcome = rejectedOutcome(r.attempts.at(-1)?.problems ?? []);
      return { reply, outcome, notApplied: notApplied(outcome, reply) };
    }
    if (diffWorkflows(base.workflow, r.workflow).empty) {
      const outcome = { kind: "unchanged" as const, summary: NOTHING_CHANGED };
      return { reply, outcome, notApplied: notApplied(outcome, reply) };
    }
    return { reply, workflow: r.workflow };
  };
}
