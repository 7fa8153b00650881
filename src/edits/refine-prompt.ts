/**
 * refine_prompt: a new prompt for an LLM node (system text, or a library template `role/variant`, and/or
 * the user text), or a tool-call node's instruction.
 */
import { z } from "zod";
import { editFail } from "./error.js";
import { type EditEnv, type EditNode, nodeOf } from "./graph.js";
import { editKind } from "./kind.js";

const schema = z.object({
  kind: z.literal("refine_prompt"),
  id: z.string(),
  system: z.string().optional(),
  template: z.string().optional(),
  user: z.string().optional(),
  instruction: z.string().optional(),
});
type RefinePrompt = z.infer<typeof schema>;

function systemText(n: EditNode, e: RefinePrompt, env: EditEnv): string | undefined {
  if (!e.template) return e.system;
  const t = env.templates?.(e.template);
  if (!t) editFail("edit.unknown_template", `no prompt template "${e.template}"`, n.id, "template");
  return t.system;
}

function refineLlm(n: EditNode, e: RefinePrompt, env: EditEnv): void {
  const system = systemText(n, e, env);
  if (system === undefined && e.user === undefined)
    editFail("edit.missing_field", "give `system`, `template` or `user`", n.id, "system");
  const c = n.config as Record<string, any>;
  const msgs: Array<{ role: string; text: string }> = Array.isArray(c.prompt_template) ? c.prompt_template : [];
  if (system !== undefined) {
    const sys = msgs.find((m) => m.role === "system");
    // Keep the tool list the builder appended to a planning prompt.
    const tail = sys?.text.match(/\n\nTools:\n[\s\S]*$/)?.[0] ?? "";
    if (sys) sys.text = `${system}${tail}`;
    else msgs.unshift({ role: "system", text: system });
  }
  if (e.user !== undefined) {
    const user = [...msgs].reverse().find((m) => m.role === "user");
    if (user) user.text = e.user;
    else msgs.push({ role: "user", text: e.user });
  }
  c.prompt_template = msgs;
}

export const refinePrompt = editKind({
  schema,
  apply(g, e, env) {
    const n = nodeOf(g, e.id);
    if (n.type === "tool-call") {
      if (e.instruction === undefined && e.system === undefined)
        editFail("edit.missing_field", "a tool-call node's prompt is its `instruction`", n.id, "instruction");
      n.config.instruction = e.instruction ?? e.system;
      return;
    }
    if (n.type !== "llm")
      editFail(
        "edit.wrong_type",
        `"${n.id}" is a ${n.type} node; prompts are refined on llm and tool-call nodes`,
        n.id,
        "id",
      );
    refineLlm(n, e, env);
  },
  describe: (e) => `prompt of ${e.id}${e.template ? ` ← ${e.template}` : ""}`,
});
