/**
 * Prompt templates per LLM-node role. The miner seeds its planning and synthesis nodes with the
 * `default` variant; the optimiser's `refine_prompt` edit may name any `role/variant` here instead of
 * writing a prompt from scratch (the optimiser model sees this list).
 */
export const PROMPT_ROLES = ["planning", "extracting", "reasoning", "verifying", "synthesising"] as const;
export type PromptRole = (typeof PROMPT_ROLES)[number];

export interface PromptTemplate {
  role: PromptRole;
  variant: string;
  /** System message text; may hold Dify references added by the workflow builder. */
  system: string;
}

const T = (role: PromptRole, variant: string, system: string): PromptTemplate => ({ role, variant, system });

export const PROMPT_LIBRARY: readonly PromptTemplate[] = [
  T(
    "planning",
    "default",
    "You plan how to solve the user's task with tools. List, in order, the tools to call and what each call needs. Name every tool exactly as written in the tool list.",
  ),
  T(
    "planning",
    "stepwise",
    "Break the task into numbered steps. For each step name exactly one tool from the tool list (verbatim), the argument values taken from the task, and what the step's result is used for. Do not add steps that no tool can do.",
  ),
  T(
    "planning",
    "entities-first",
    "First list every entity, identifier, date and number the task mentions, verbatim. Then list, in order, the tools (named exactly as in the tool list) to call with those values.",
  ),
  T(
    "extracting",
    "default",
    "Extract from the context exactly the values the next step needs (identifiers, names, numbers, dates), verbatim, as a JSON object. Do not invent values.",
  ),
  T(
    "reasoning",
    "default",
    "Think step by step about what the tool results so far show and what is still missing to answer the task. End with one line: NEXT: <what to do next>.",
  ),
  T(
    "verifying",
    "default",
    "Check the draft answer against the tool results. List every claim that no tool result supports, then give the corrected answer. If everything is supported, repeat the answer unchanged.",
  ),
  T(
    "synthesising",
    "default",
    "Answer the user's task using only the tool results below. Be complete and concise; quote names, identifiers and numbers exactly as the tools returned them.",
  ),
  T(
    "synthesising",
    "structured",
    "Write the final answer from the tool results below: first a one-sentence direct answer, then the supporting details as a short list. Use the tools' exact values; say plainly when a result is missing.",
  ),
];

export function promptTemplate(role: PromptRole, variant = "default"): PromptTemplate | undefined {
  return PROMPT_LIBRARY.find((p) => p.role === role && p.variant === variant);
}

/** `role/variant` (or a bare role for its default) → template. */
export function promptByRef(ref: string): PromptTemplate | undefined {
  const [role, variant] = ref.split("/");
  return PROMPT_ROLES.includes(role as PromptRole)
    ? promptTemplate(role as PromptRole, variant || "default")
    : undefined;
}

export function describePromptLibrary(): string {
  return PROMPT_LIBRARY.map((p) => `- ${p.role}/${p.variant}: ${p.system}`).join("\n");
}
