import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { NodeExecutionError } from "../ir/errors.js";
import type { InputRef, TextField } from "../ir/registry.js";
import type { ChatMessage, LlmResponse, Usage } from "../ir/services.js";
import { commonFields, defineNode, ModelSchema, Sel, templateInputs, textField } from "./common.js";
import { makeDiagnostic } from "./diagnostics.js";
import {
  appendToLastUser,
  callModel,
  historyText,
  MemorySchema,
  memoryInputs,
  memoryTexts,
  parseJsonObject,
  readHistory,
  redactParts,
  usageOutput,
  VisionSchema,
  visionInputs,
  visionParts,
  ZERO_USAGE,
} from "./model-call.js";

const ClassSchema = z
  .object({
    id: z.union([z.string(), z.number()]).transform(String),
    name: z.string().default(""),
    label: z.string().nullish(),
  })
  .loose();

const QuestionClassifierConfig = z
  .object({
    ...commonFields,
    query_variable_selector: Sel.default([]),
    model: ModelSchema,
    classes: z.array(ClassSchema).default([]),
    instruction: z.string().nullish(),
    /** Old UI files: graphon reads only `instruction`, Weft falls back to this when that is empty. */
    instructions: z.string().nullish(),
    topics: z.array(z.unknown()).nullish(),
    memory: MemorySchema.nullish(),
    vision: VisionSchema.default({ enabled: false }),
  })
  .loose();
export type QuestionClassifierConfig = z.infer<typeof QuestionClassifierConfig>;

function instructionOf(c: QuestionClassifierConfig): string {
  return c.instruction || c.instructions || "";
}

function qcTexts(c: QuestionClassifierConfig): TextField[] {
  return [
    ...textField(c.instruction ? "instruction" : "instructions", instructionOf(c)),
    ...c.classes.flatMap((k, i) => textField(`classes[${i}].name`, k.name)),
    ...memoryTexts(c.memory),
  ];
}

function qcInputs(c: QuestionClassifierConfig): InputRef[] {
  const out: InputRef[] = [];
  if (c.query_variable_selector.length > 0) {
    out.push({ selector: c.query_variable_selector, field: "query_variable_selector", expects: "string" });
  }
  for (const t of qcTexts(c))
    if (t.field !== "memory.query_prompt_template") out.push(...templateInputs(t.text, t.field));
  out.push(...memoryInputs(c.memory), ...visionInputs(c.vision));
  return out;
}

const SYSTEM_PROMPT = [
  "You classify a piece of text into exactly one of the given categories.",
  "Read the input text, the category list (each with a category_id and a category_name) and any classification instructions.",
  "Answer with one JSON object and nothing else, of the form",
  '{"keywords": ["..."], "category_id": "<one of the given ids>", "category_name": "<its name>"}',
  "where keywords are the words of the input that decided the category.",
].join("\n");

function userPrompt(
  input: string,
  categories: Array<{ category_id: string; category_name: string }>,
  instruction: string,
): string {
  return JSON.stringify(
    { input_text: input, categories, classification_instructions: instruction ? [instruction] : [] },
    null,
    1,
  );
}

const RESULT_SCHEMA = {
  type: "object",
  properties: {
    keywords: { type: "array", items: { type: "string" } },
    category_id: { type: "string" },
    category_name: { type: "string" },
  },
  required: ["category_id", "category_name"],
  additionalProperties: false,
};

export const questionClassifierNode = defineNode<QuestionClassifierConfig>({
  type: "question-classifier",
  label: "Question Classifier",
  category: "llm",
  purpose:
    "Uses a language model to put the input text into one of several classes and routes to the branch of that class.",
  notes: [
    "Each class has an id (the branch handle of its outgoing edge) and a name that describes it to the model.",
    "If the model's answer cannot be read or names no known class, the first class is chosen.",
    "Outputs class_name, class_id and class_label of the chosen class.",
  ],
  configSchema: QuestionClassifierConfig,
  example: {
    query_variable_selector: ["start", "query"],
    model: { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: { temperature: 0 } },
    classes: [
      { id: "1", name: "Billing question" },
      { id: "2", name: "Technical problem" },
    ],
    instruction: "",
    vision: { enabled: false },
  },
  outputs: () => [
    { name: "class_name", type: "string" },
    { name: "class_id", type: "string" },
    { name: "class_label", type: "string" },
    { name: "usage", type: "object" },
  ],
  inputs: (c) => qcInputs(c),
  ports: (c) => c.classes.map((k) => k.id),
  texts: (c) => qcTexts(c),
  rules(c, sctx) {
    const id = sctx.node.id;
    const out: Diagnostic[] = [];
    if (c.classes.length === 0)
      out.push(makeDiagnostic(id, "question_classifier.no_classes", "classes", "there are no classes"));
    const seen = new Set<string>();
    c.classes.forEach((k, i) => {
      if (k.id.trim() === "") {
        out.push(
          makeDiagnostic(id, "question_classifier.empty_id", `classes[${i}].id`, `class ${i + 1} has an empty id`),
        );
      } else if (seen.has(k.id)) {
        out.push(
          makeDiagnostic(
            id,
            "question_classifier.duplicate_id",
            `classes[${i}].id`,
            `class id "${k.id}" is used twice`,
          ),
        );
      }
      seen.add(k.id);
      if (k.name.trim() === "") {
        out.push(
          makeDiagnostic(
            id,
            "question_classifier.empty_name",
            `classes[${i}].name`,
            `class "${k.id}" has no name`,
            "warning",
          ),
        );
      }
    });
    if (c.query_variable_selector.length === 0) {
      out.push(
        makeDiagnostic(id, "question_classifier.no_query", "query_variable_selector", "no input variable is chosen"),
      );
    }
    return out;
  },
  async execute(ctx) {
    const c = ctx.config;
    const first = c.classes[0];
    if (!first) {
      throw new NodeExecutionError(
        "question_classifier.no_classes",
        `question-classifier node "${ctx.node.title || ctx.node.id}" has no classes`,
        ctx.node.id,
      );
    }
    const q = c.query_variable_selector.length > 0 ? ctx.read(c.query_variable_selector) : { found: false };
    const input = q.found && q.value != null ? (typeof q.value === "string" ? q.value : JSON.stringify(q.value)) : "";
    const classes = c.classes.map((k, i) => ({
      id: k.id,
      name: ctx.render(k.name),
      label: k.label || `CLASS ${i + 1}`,
    }));
    const instruction = ctx.render(instructionOf(c));
    const history = readHistory(ctx, c.memory);
    let system = SYSTEM_PROMPT;
    if (c.memory && history.length > 0) {
      system += `\nThe conversation so far, inside <histories></histories>:\n<histories>\n${historyText(history, c.memory)}\n</histories>`;
    }
    const messages: ChatMessage[] = [
      { role: "system", content: system },
      {
        role: "user",
        content: userPrompt(
          input,
          classes.map((k) => ({ category_id: k.id, category_name: k.name })),
          instruction,
        ),
      },
    ];
    appendToLastUser(messages, await visionParts(ctx, c.vision));
    let res: LlmResponse;
    try {
      res = await callModel(ctx, {
        model: c.model,
        messages,
        json: { schema: RESULT_SCHEMA, name: "classification" },
      });
    } catch (err) {
      // An answer that is not the JSON asked for is Dify's "unparseable" case: first class, not a failure.
      if (!(err instanceof NodeExecutionError) || !/STRUCTURED_OUTPUT_INVALID/i.test(err.code)) throw err;
      const usage = (err.details.usage as Usage | undefined) ?? ZERO_USAGE;
      res = { text: String(err.details.text ?? ""), toolCalls: [], usage, finishReason: "stop" };
    }
    const parsed = parseJsonObject(res.text);
    const wantedId = parsed?.category_id != null ? String(parsed.category_id) : undefined;
    const wantedName = typeof parsed?.category_name === "string" ? parsed.category_name : undefined;
    // Dify matches on the id; a model that echoes only the name is matched on that as a courtesy.
    const matched =
      classes.find((k) => k.id === wantedId) ??
      (wantedName !== undefined ? classes.find((k) => k.name === wantedName) : undefined);
    const chosen = matched ?? (classes[0] as (typeof classes)[number]);
    const fellBack = matched === undefined;
    return {
      outputs: {
        class_name: chosen.name,
        class_id: chosen.id,
        class_label: chosen.label,
        usage: usageOutput(res.usage),
      },
      port: chosen.id,
      usage: res.usage,
      meta: { messages: redactParts(messages), raw: res.text, fellBack },
    };
  },
});
