import { z } from "zod";
import type { ChatMessage, LlmService, ModelRef, ToolSpec } from "../../ir/services.js";
import { CompileError, chatJson, prompt } from "../llm.js";
import { atomsOf, FormulaSchema } from "./coverage.js";

/**
 * The model's reading of the SOP's decision logic, extracted on its own (the draft never sees these
 * formulas): each decision is a boolean formula over atomic comparisons in Dify's vocabulary, on the
 * same artifact names the draft uses. The dry runs compare the compiled conditions against it.
 */
export const SourceAtomSchema = z.object({
  id: z.string().min(1),
  artifact: z.string().min(1),
  path: z.array(z.string()).optional(),
  comparison_operator: z.string().min(1),
  value: z.unknown().optional(),
  description: z.string().optional(),
});

export const SourceDecisionSchema = z.object({
  id: z.string().min(1),
  description: z.string().default(""),
  /** branch: the formula says when the SOP takes the "yes" path; loop: when the repetition stops. */
  kind: z.enum(["branch", "loop"]).default("branch"),
  atoms: z.array(SourceAtomSchema).min(1),
  formula: FormulaSchema,
});
export type SourceDecision = z.infer<typeof SourceDecisionSchema>;

export const SourceLogicSchema = z.object({
  /** Artifacts the decisions test, with their types, so the draft can use the same names. */
  artifacts: z
    .array(z.object({ name: z.string(), type: z.string().default("string"), description: z.string().optional() }))
    .default([]),
  decisions: z.array(SourceDecisionSchema).default([]),
});
export type SourceLogic = z.infer<typeof SourceLogicSchema>;

/** Loose wire schema (the formula is recursive; it is checked with zod after the call). */
const WIRE_SCHEMA = {
  type: "object",
  properties: {
    artifacts: {
      type: "array",
      items: {
        type: "object",
        properties: { name: { type: "string" }, type: { type: "string" }, description: { type: "string" } },
        required: ["name"],
      },
    },
    decisions: {
      type: "array",
      items: {
        type: "object",
        properties: {
          id: { type: "string" },
          description: { type: "string" },
          kind: { type: "string", enum: ["branch", "loop"] },
          atoms: {
            type: "array",
            items: {
              type: "object",
              properties: {
                id: { type: "string" },
                artifact: { type: "string" },
                path: { type: "array", items: { type: "string" } },
                comparison_operator: { type: "string" },
                value: {},
                description: { type: "string" },
              },
              required: ["id", "artifact", "comparison_operator"],
            },
          },
          formula: { type: "object" },
        },
        required: ["id", "atoms", "formula"],
      },
    },
  },
  required: ["decisions"],
} as const;

/** Validate an extraction: the schema, and every formula atom declared in its decision. */
export function parseSourceLogic(raw: unknown): SourceLogic {
  const parsed = SourceLogicSchema.safeParse(raw);
  if (!parsed.success) {
    const issues = parsed.error.issues.slice(0, 10).map((i) => `${i.path.join(".")}: ${i.message}`);
    throw new CompileError(
      "compile.source_logic_invalid",
      `the SOP decision logic does not match its schema: ${issues.join("; ")}`,
      { issues },
    );
  }
  for (const d of parsed.data.decisions) {
    const ids = new Set(d.atoms.map((a) => a.id));
    const unknown = atomsOf(d.formula).filter((a) => !ids.has(a));
    if (unknown.length)
      throw new CompileError(
        "compile.source_logic_invalid",
        `decision "${d.id}": the formula uses undeclared atoms ${unknown.join(", ")}`,
        { decision: d.id, atoms: unknown },
      );
  }
  return parsed.data;
}

export async function extractSourceLogic(o: {
  llm: LlmService;
  model: ModelRef;
  sop: string;
  tools: ToolSpec[];
}): Promise<SourceLogic> {
  const p = prompt("source-logic", { sop: o.sop, tools: toolsText(o.tools) });
  const messages: ChatMessage[] = [
    { role: "system", content: p.system },
    { role: "user", content: p.user },
  ];
  const ask = () =>
    chatJson({
      llm: o.llm,
      model: o.model,
      messages,
      schema: WIRE_SCHEMA as unknown as Record<string, unknown>,
      name: "sop_decision_logic",
      stage: "source-logic",
    });
  const raw = await ask();
  try {
    return parseSourceLogic(raw);
  } catch (e) {
    if (!(e instanceof CompileError)) throw e;
    // One repair turn: the problem (an undeclared atom, a bad formula node) back to the model.
    messages.push(
      { role: "assistant", content: JSON.stringify(raw) },
      { role: "user", content: `That is not valid: ${e.message}. Return the corrected JSON object.` },
    );
    return parseSourceLogic(await ask());
  }
}

/** Tool specs as the prompts show them: name, description, parameters. */
export function toolsText(tools: readonly ToolSpec[]): string {
  if (tools.length === 0) return "(no tools)";
  return tools.map((t) => `- ${t.name}: ${t.description}\n  parameters: ${JSON.stringify(t.parameters)}`).join("\n");
}
