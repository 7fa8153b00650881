/** The rubric judge over the configured model endpoints: the resolve stage's judge (one user message, temperature 0). */

import type { ResolveJudgeFn } from "../eval/metrics/resolve.js";
import { WeftError } from "../ir/errors.js";
import type { LlmService, ModelRef } from "../ir/services.js";

export function rubricJudge(llm: LlmService, model: string): ResolveJudgeFn {
  const ref: ModelRef = { provider: "weft-judge", name: model, completion_params: { temperature: 0 } };
  return async ({ prompt }) => {
    const res = await llm.chat({ model: ref, messages: [{ role: "user", content: prompt }] });
    if (typeof res.text !== "string" || res.text === "")
      throw new WeftError("tests.judge_no_reply", `judge model ${model} answered with no text`, { model });
    return res.text;
  };
}
