import { Hono } from "hono";
import { FormError } from "../../engine/human-input.js";
import type { FormRecord } from "../../store/forms.js";
import type { ServerDeps } from "../context.js";
import { objectArg, readBody, userOf, type V1Env } from "./env.js";
import { badParam, notFound } from "./errors.js";
import { resolveFileList } from "./files-in.js";

/** A form of one of this app's runs, by its token; closed forms answer Dify's 412s. */
async function formOf(deps: ServerDeps, appId: string, token: string): Promise<FormRecord> {
  const form = await deps.stores.forms.formByToken(token);
  const run = form ? await deps.runs.getRun(form.runId) : undefined;
  if (!form || run?.appId !== appId) throw notFound("Form not found");
  if (form.status === "submitted")
    throw new FormError("form.submitted", `This form has already been submitted by another user, form_id=${form.id}`);
  if (form.status === "timeout" || (form.expiresAt !== null && form.expiresAt <= Date.now()))
    throw new FormError("form.expired", `This form has expired, form_id=${form.id}`);
  return form;
}

/** File answers arrive as Dify file mappings; the form stores them as file values. */
async function answerInputs(deps: ServerDeps, appId: string, form: FormRecord, raw: Record<string, unknown>) {
  const out = { ...raw };
  for (const input of form.inputs) {
    const v = raw[input.output_variable_name];
    if (v === undefined || v === null) continue;
    const where = `inputs.${input.output_variable_name}`;
    if (input.type === "file")
      out[input.output_variable_name] = (await resolveFileList(deps.stores.service, appId, [v], where))[0];
    if (input.type === "file-list")
      out[input.output_variable_name] = await resolveFileList(deps.stores.service, appId, v, where);
  }
  return out;
}

/** Dify's Get / Submit Human Input Form (`/v1/form/human_input/:form_token`): answering continues the paused run. */
export function formRoutes(deps: ServerDeps): Hono<V1Env> {
  const r = new Hono<V1Env>();
  r.get("/form/human_input/:token", async (c) => {
    const form = await formOf(deps, c.get("app").id, c.req.param("token"));
    return c.json({
      form_content: form.content,
      inputs: form.inputs,
      resolved_default_values: form.defaults,
      user_actions: form.actions,
      expiration_time: form.expiresAt === null ? null : Math.floor(form.expiresAt / 1000),
    });
  });
  r.post("/form/human_input/:token", async (c) => {
    const app = c.get("app");
    const body = await readBody(c);
    const user = userOf(body.user);
    if (typeof body.action !== "string" || body.action === "") throw badParam("action is required");
    const form = await formOf(deps, app.id, c.req.param("token"));
    const inputs = await answerInputs(deps, app.id, form, objectArg(body.inputs, "inputs"));
    await deps.paused.answer(form, { action: body.action, inputs, user });
    return c.json({});
  });
  return r;
}
