import { z } from "zod";
import { templateRefs } from "../ir/selector.js";
import { commonFields, defineNode, textField } from "./common.js";

const AnswerConfig = z.object({ ...commonFields, answer: z.string().default("") }).loose();
export type AnswerConfig = z.infer<typeof AnswerConfig>;

function isFile(v: unknown): boolean {
  return !!v && typeof v === "object" && "transfer_method" in (v as object) && "filename" in (v as object);
}

export const answerNode = defineNode<AnswerConfig>({
  type: "answer",
  label: "Answer",
  category: "io",
  purpose: "Replies to the user in an advanced-chat app; its template text streams as soon as its values exist.",
  notes: ["Only in advanced-chat mode.", "Several answer nodes' texts are concatenated in completion order."],
  configSchema: AnswerConfig,
  example: { answer: "{{#llm.text#}}" },
  exit: true,
  modes: ["advanced-chat"],
  outputs: () => [
    { name: "answer", type: "string" },
    { name: "files", type: "array[file]" },
  ],
  inputs: (c) => templateRefs(c.answer).map((r) => ({ selector: r.selector, field: "answer", fromTemplate: true })),
  ports: () => ["source"],
  texts: (c) => textField("answer", c.answer),
  rules(c, ctx) {
    if (c.answer.trim() === "") {
      return [
        {
          code: "answer.empty",
          severity: "warning",
          nodeId: ctx.node.id,
          field: "answer",
          message: "answer text is empty",
        },
      ];
    }
    return [];
  },
  async execute(ctx) {
    const text = ctx.render(ctx.config.answer, "markdown");
    ctx.emit({ type: "chunk", text, selector: [ctx.node.id, "answer"] });
    const files: unknown[] = [];
    for (const ref of templateRefs(ctx.config.answer)) {
      const r = ctx.read(ref.selector);
      if (!r.found) continue;
      const vals = Array.isArray(r.value) ? r.value : [r.value];
      for (const v of vals) if (isFile(v)) files.push(v);
    }
    return { outputs: { answer: text, files } };
  },
});
