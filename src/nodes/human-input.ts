import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { NotConfiguredError, RunPause } from "../ir/errors.js";
import type { ExecContext, InputRef } from "../ir/registry.js";
import type { FormDecision, FormInputDef } from "../ir/services.js";
import type { ValueType } from "../ir/types.js";
import { commonFields, defineNode, Sel, templateInputs, textField } from "./common.js";

/** The port a human-input node takes when its form expires unanswered (Dify's TIMEOUT_HANDLE). */
export const TIMEOUT_PORT = "__timeout";

const ValueSource = z
  .object({ type: z.enum(["variable", "constant"]), selector: Sel.default([]), value: z.unknown().optional() })
  .loose();

const FormInput = z
  .object({
    type: z.enum(["text_input", "text-input", "paragraph", "select", "file", "file-list"]),
    output_variable_name: z.string().min(1),
    /** Current Dify: the prefilled value; older exports call it `placeholder`. */
    default: ValueSource.nullish(),
    placeholder: ValueSource.nullish(),
    /** Select inputs: the options, listed or read from an array[string] variable. */
    option_source: ValueSource.nullish(),
    number_limits: z.number().int().min(0).optional(),
  })
  .loose();
type FormInput = z.infer<typeof FormInput>;

const UserAction = z
  .object({ id: z.string(), title: z.string().default(""), button_style: z.string().default("default") })
  .loose();

const HumanInputConfig = z
  .object({
    ...commonFields,
    form_content: z.string().default(""),
    inputs: z.array(FormInput).default([]),
    user_actions: z.array(UserAction).default([]),
    /** Dify counts the timeout in hours or days; 0 or less waits forever. */
    timeout: z.number().default(36),
    timeout_unit: z.enum(["hour", "day"]).default("hour"),
    delivery_methods: z.array(z.unknown()).default([]),
  })
  .loose();
export type HumanInputConfig = z.infer<typeof HumanInputConfig>;

/** `{{#$output.name#}}`: where a submitted value appears in the form text once answered. */
const OUTPUT_PLACEHOLDER = /\{\{#\$output\.([a-zA-Z_][a-zA-Z0-9_]{0,29})#\}\}/g;
const ACTION_ID = /^[A-Za-z_][A-Za-z0-9_]{0,19}$/;
const HOUR_MS = 3_600_000;

function outputType(input: FormInput): ValueType {
  if (input.type === "file") return "file";
  if (input.type === "file-list") return "array[file]";
  return "string";
}

function timeoutMs(c: HumanInputConfig): number | null {
  if (!(c.timeout > 0)) return null;
  return c.timeout * (c.timeout_unit === "day" ? 24 * HOUR_MS : HOUR_MS);
}

function formInputs(c: HumanInputConfig): InputRef[] {
  const refs = templateInputs(c.form_content, "form_content");
  c.inputs.forEach((input, i) => {
    for (const [field, src] of [
      ["default", input.default],
      ["placeholder", input.placeholder],
      ["option_source", input.option_source],
    ] as const) {
      if (src?.type !== "variable" || src.selector.length === 0) continue;
      const expects: ValueType | undefined = field === "option_source" ? "array[string]" : undefined;
      refs.push({
        selector: src.selector,
        field: `inputs[${i}].${field}.selector`,
        optional: true,
        ...(expects ? { expects } : {}),
      });
    }
  });
  return refs;
}

function rules(c: HumanInputConfig, nodeId: string): Diagnostic[] {
  const out: Diagnostic[] = [];
  const err = (code: string, field: string, message: string, severity: Diagnostic["severity"] = "error") =>
    out.push({ code, severity, nodeId, field, message });
  if (c.user_actions.length === 0)
    err(
      "human_input.no_actions",
      "user_actions",
      "a human-input node needs at least one user action: its buttons are its output ports",
    );
  const ids = new Set<string>();
  c.user_actions.forEach((a, i) => {
    if (!ACTION_ID.test(a.id))
      err(
        "human_input.bad_action_id",
        `user_actions[${i}].id`,
        `action id "${a.id}" must be an identifier of at most 20 characters`,
      );
    if (a.id === TIMEOUT_PORT)
      err("human_input.reserved_action", `user_actions[${i}].id`, `"${TIMEOUT_PORT}" is the timeout port`);
    if (ids.has(a.id))
      err("human_input.duplicate_action", `user_actions[${i}].id`, `action id "${a.id}" is used twice`);
    ids.add(a.id);
  });
  const names = new Set<string>();
  c.inputs.forEach((input, i) => {
    const name = input.output_variable_name;
    if (names.has(name))
      err("human_input.duplicate_input", `inputs[${i}].output_variable_name`, `input "${name}" is declared twice`);
    names.add(name);
    if (input.type === "select" && !input.option_source)
      err("human_input.no_options", `inputs[${i}].option_source`, `select input "${name}" has no option_source`);
  });
  for (const m of c.form_content.matchAll(OUTPUT_PLACEHOLDER)) {
    if (!names.has(m[1]!))
      err(
        "human_input.unknown_placeholder",
        "form_content",
        `{{#$output.${m[1]}#}} names no input of this form`,
        "warning",
      );
  }
  return out;
}

/** How a default or an option shows in a form field. */
function asText(v: unknown): string {
  if (v === null || v === undefined) return "";
  return typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v);
}

/** A variable-sourced value, read now; constants as they are. */
function sourceValue(ctx: ExecContext<HumanInputConfig>, src: FormInput["default"]): unknown {
  if (!src) return undefined;
  if (src.type === "constant") return src.value;
  const r = ctx.read(src.selector);
  return r.found ? r.value : undefined;
}

/** The inputs as the form shows them: select options read from variables are listed as they were at the pause. */
function resolvedInputs(ctx: ExecContext<HumanInputConfig>): {
  inputs: FormInputDef[];
  defaults: Record<string, unknown>;
} {
  const defaults: Record<string, unknown> = {};
  const inputs = ctx.config.inputs.map((input): FormInputDef => {
    const def = sourceValue(ctx, input.default ?? input.placeholder);
    if (def !== undefined && def !== null) defaults[input.output_variable_name] = asText(def);
    if (input.type !== "select" || input.option_source?.type !== "variable") return { ...input };
    const options = sourceValue(ctx, input.option_source);
    const value = Array.isArray(options) ? options.map((o) => asText(o)) : [];
    return { ...input, option_source: { type: "constant", selector: [], value } };
  });
  return { inputs, defaults };
}

/** The form text once answered: each `{{#$output.x#}}` shows what was submitted (files by count). */
export function renderAnswered(
  content: string,
  inputs: readonly FormInputDef[],
  values: Record<string, unknown>,
): string {
  const byName = new Map(inputs.map((i) => [i.output_variable_name, i]));
  return content.replace(OUTPUT_PLACEHOLDER, (_m, name: string) => {
    const v = values[name];
    if (v === undefined || v === null) return "";
    const type = byName.get(name)?.type;
    if (type === "file") return "[file]";
    if (type === "file-list") return `[${Array.isArray(v) ? v.length : 0} files]`;
    return typeof v === "object" ? JSON.stringify(v) : String(v);
  });
}

function outcome(c: HumanInputConfig, d: Exclude<FormDecision, { status: "waiting" }>) {
  if (d.status === "timeout") {
    const outputs = { __action_id: "", __action_value: "", __rendered_content: d.form.content };
    return { outputs, port: TIMEOUT_PORT };
  }
  const title = c.user_actions.find((a) => a.id === d.action)?.title ?? d.action;
  const outputs = {
    ...d.inputs,
    __action_id: d.action,
    __action_value: title,
    __rendered_content: renderAnswered(d.form.content, d.form.inputs, d.inputs),
  };
  return { outputs, port: d.action };
}

export const humanInputNode = defineNode<HumanInputConfig>({
  type: "human-input",
  label: "Human Input",
  category: "logic",
  purpose:
    "Pauses the run with a form (text, inputs, action buttons) until someone answers; continues on the chosen action's port, or on __timeout when the form expires.",
  notes: [
    "Ports: one per user action id, plus __timeout. Outputs: each input's output_variable_name, __action_id, __action_value (the button title), __rendered_content.",
    "form_content may reference run values ({{#node.var#}}) and show answers with {{#$output.name#}}.",
    "The paused run holds no worker; it resumes when the form is submitted (weft resume --input, the API, the web form).",
  ],
  configSchema: HumanInputConfig,
  example: {
    form_content: "Approve the draft?\n\n{{#llm.text#}}",
    inputs: [{ type: "paragraph", output_variable_name: "comment" }],
    user_actions: [
      { id: "approve", title: "Approve", button_style: "primary" },
      { id: "reject", title: "Reject", button_style: "default" },
    ],
    timeout: 24,
    timeout_unit: "hour",
  },
  outputs: (c) => [
    ...c.inputs.map((i) => ({ name: i.output_variable_name, type: outputType(i) })),
    { name: "__action_id", type: "string" as const },
    { name: "__action_value", type: "string" as const },
    { name: "__rendered_content", type: "string" as const },
  ],
  inputs: (c) => formInputs(c),
  ports: (c) => [...c.user_actions.map((a) => a.id), TIMEOUT_PORT],
  // The answer placeholders are not run references; the analyser sees the text without them.
  texts: (c) => textField("form_content", c.form_content.replace(OUTPUT_PLACEHOLDER, "")),
  rules: (c, ctx) => rules(c, ctx.node.id),
  async execute(ctx) {
    const c = ctx.config;
    const service = ctx.services.humanInput;
    if (!service) {
      throw new NotConfiguredError(
        "human_input.no_form_store",
        `human-input node "${ctx.node.title || ctx.node.id}" pauses the run until someone answers, which needs a durable form store: run it with a database (weft run --db FILE, weft serve, weft worker)`,
      );
    }
    const { inputs, defaults } = resolvedInputs(ctx);
    const decision = await service.request({
      runId: ctx.runId,
      key: ctx.key,
      nodeId: ctx.node.id,
      nodeTitle: ctx.node.title,
      content: ctx.render(c.form_content, "markdown"),
      inputs,
      actions: c.user_actions.map((a) => ({ id: a.id, title: a.title, button_style: a.button_style })),
      defaults,
      timeoutMs: timeoutMs(c),
      now: ctx.services.now().getTime(),
    });
    if (decision.status === "waiting") throw new RunPause([{ key: ctx.key, nodeId: ctx.node.id, form: decision.form }]);
    return { ...outcome(c, decision), meta: { formId: decision.form.formId } };
  },
});
