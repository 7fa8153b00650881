/**
 * Which rules a Chat2Workflow evaluation follows. `upstream` (the default of `weft eval chat2workflow`)
 * reproduces zjunlp/Chat2Workflow's own evaluation scripts wherever they state a rule; `weft` keeps
 * Weft's stricter choices. docs/chat2workflow-results.md lists every difference with its reason.
 */
import { WeftError } from "../ir/errors.js";

export const FIDELITIES = ["upstream", "weft"] as const;
export type Fidelity = (typeof FIDELITIES)[number];

export class FidelityError extends WeftError {}

export function parseFidelity(raw: string): Fidelity {
  if ((FIDELITIES as readonly string[]).includes(raw)) return raw as Fidelity;
  throw new FidelityError("eval.bad_fidelity", `--fidelity must be one of ${FIDELITIES.join(", ")}, got "${raw}"`, {
    field: "fidelity",
  });
}

/**
 * R7: the completion params upstream's converter writes into every LLM, parameter-extractor and
 * question-classifier node (nodes/dify/basic/llm.py:19-22, parameter_extractor.py:15-17,
 * question_classifier.py:18-20). Weft's converter writes none (the provider's defaults apply).
 */
export const UPSTREAM_NODE_COMPLETION_PARAMS = { temperature: 0.7, max_tokens: 32768 } as const;

/**
 * R10: upstream runs each case with a blocking `requests.post` and no timeout (resolve_stage.py:169);
 * Weft's own mode cancels a case after 300 s so one hung node cannot hold a whole evaluation.
 */
export const WEFT_CASE_TIMEOUT_MS = 300_000;

export function defaultCaseTimeoutMs(f: Fidelity): number | undefined {
  return f === "weft" ? WEFT_CASE_TIMEOUT_MS : undefined;
}
