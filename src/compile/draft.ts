import { z } from "zod";
import type { ChatMessage, LlmService, ModelRef, ToolSpec } from "../ir/services.js";
import { CompileError, chatJson, prompt } from "./llm.js";
import { ModelError, parseModel, type SopModel, SopModelSchema } from "./model.js";
import { type SourceLogic, toolsText } from "./validate/source.js";

let wireSchema: Record<string, unknown> | undefined;
/** The JSON Schema the draft is asked to fill: the zod model as input (defaults optional). */
export function modelJsonSchema(): Record<string, unknown> {
  wireSchema ??= z.toJSONSchema(SopModelSchema, { io: "input", unrepresentable: "any" }) as Record<string, unknown>;
  return wireSchema;
}

export interface DraftContext {
  llm: LlmService;
  model: ModelRef;
  sop: string;
  tools: ToolSpec[];
  /** Decision ids and descriptions (never their formulas) so branches can say which they implement. */
  logic?: SourceLogic;
  /** Re-asks when the answer is not a well-formed model (default 2). */
  repairAttempts?: number;
}

export interface DraftResult {
  model: SopModel;
  /** Model calls spent, including repair turns for malformed models. */
  calls: number;
  /** Issues of rejected answers, oldest first. */
  rejected: string[];
}

/**
 * Decision ids, descriptions and the artifact names they test — never the formulas, so the draft's
 * conditions and the SOP reading stay independent, but speak of the same values.
 */
function decisionsText(logic?: SourceLogic): string {
  if (!logic || logic.decisions.length === 0) return "(none listed)";
  const lines = logic.decisions.map((d) => `- ${d.id} (${d.kind}): ${d.description}`);
  if (logic.artifacts.length)
    lines.push(
      `Values these decisions test (use these artifact names): ${logic.artifacts.map((a) => `${a.name} (${a.type})`).join(", ")}`,
    );
  return lines.join("\n");
}

function baseMessages(c: DraftContext): ChatMessage[] {
  const p = prompt("draft", { sop: c.sop, tools: toolsText(c.tools), decisions: decisionsText(c.logic) });
  return [
    { role: "system", content: p.system },
    { role: "user", content: p.user },
  ];
}

/** Ask, parse, and on a malformed model send its issues back (up to repairAttempts times). */
async function askModel(c: DraftContext, messages: ChatMessage[], stage: string): Promise<DraftResult> {
  const rejected: string[] = [];
  const convo = [...messages];
  const attempts = 1 + (c.repairAttempts ?? 2);
  for (let i = 0; i < attempts; i++) {
    const raw = await chatJson({
      llm: c.llm,
      model: c.model,
      messages: convo,
      schema: modelJsonSchema(),
      name: "workflow_model",
      stage,
    });
    try {
      return { model: parseModel(raw), calls: i + 1, rejected };
    } catch (e) {
      if (!(e instanceof ModelError)) throw e;
      rejected.push(e.message);
      convo.push({ role: "assistant", content: JSON.stringify(raw) });
      convo.push({
        role: "user",
        content: `That model is not valid:\n${e.message}\nReturn the corrected complete model as one JSON object.`,
      });
    }
  }
  throw new CompileError(
    "compile.draft_failed",
    `${stage}: no well-formed workflow model after ${attempts} answers; last problems:\n${rejected.at(-1) ?? ""}`,
    {
      stage,
      rejected,
    },
  );
}

/** The first draft: SOP text and tool schemas in, a validated workflow model out. */
export function draftModel(c: DraftContext): Promise<DraftResult> {
  return askModel(c, baseMessages(c), "draft");
}

/**
 * A revision: the draft conversation, the current model as the assistant's answer, then the feedback
 * (burden regions, static errors, dry-run disagreements, failed obligations).
 */
export function reviseModel(
  c: DraftContext,
  current: SopModel,
  kind: string,
  feedback: readonly string[],
): Promise<DraftResult> {
  const p = prompt("revise", { kind, feedback: feedback.map((f) => `- ${f}`).join("\n") });
  return askModel(
    c,
    [...baseMessages(c), { role: "assistant", content: JSON.stringify(current) }, { role: "user", content: p.user }],
    `revise (${kind})`,
  );
}
