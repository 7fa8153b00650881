import { z } from "zod";
import { NodeExecutionError } from "../ir/errors.js";
import { bindingInputs, commonFields, defineNode, VariableBinding } from "./common.js";
import { JinjaError, renderJinja } from "./jinja.js";

const TemplateTransformConfig = z
  .object({ ...commonFields, variables: z.array(VariableBinding).default([]), template: z.string().default("") })
  .loose();
export type TemplateTransformConfig = z.infer<typeof TemplateTransformConfig>;

export const templateTransformNode = defineNode<TemplateTransformConfig>({
  type: "template-transform",
  label: "Template",
  category: "transform",
  purpose: "Renders a Jinja2 template over named variables into one string (`output`).",
  notes: ["Variables are bound by name in `variables` and used as {{ name }} in the template, not {{#…#}}."],
  configSchema: TemplateTransformConfig,
  example: { variables: [{ variable: "text", value_selector: ["llm", "text"] }], template: "Result: {{ text }}" },
  outputs: () => [{ name: "output", type: "string" }],
  inputs: (c) => bindingInputs(c.variables, "variables"),
  ports: () => ["source"],
  texts: (c) => [{ field: "template", text: c.template, kind: "jinja2" }],
  async execute(ctx) {
    const vars: Record<string, unknown> = {};
    for (const v of ctx.config.variables) {
      const r = ctx.read(v.value_selector);
      vars[v.variable] = r.found ? r.value : null;
    }
    try {
      return { outputs: { output: await renderJinja(ctx.config.template, vars, { signal: ctx.signal }) } };
    } catch (e) {
      if (e instanceof JinjaError) throw new NodeExecutionError(e.code, e.message, ctx.node.id, { field: "template" });
      throw e;
    }
  },
});
