import { Hono } from "hono";
import { FormError, pendingForm } from "../../engine/human-input.js";
import type { FormRecord } from "../../store/forms.js";
import { readJson, type ServerDeps } from "../context.js";
import { ApiError } from "../errors.js";

/** A form as the web run panel shows it; the token stays server-side (the session's API key is the credential here). */
function formJson(f: FormRecord) {
  const { formId, token, ...shown } = pendingForm(f);
  return { id: formId, ...shown, status: f.status, ...(f.submission && { submission: f.submission }) };
}

const STATUS: Record<string, number> = { "form.not_found": 404, "form.submitted": 409, "form.expired": 409 };

/** A paused run's human-input forms (`/api/runs/:id/forms`): list them; answer one and the run continues. */
export function runFormRoutes(deps: ServerDeps): Hono {
  const r = new Hono();
  const formsOf = async (runId: string) => {
    if (!(await deps.runs.getRun(runId))) throw new ApiError(404, "run.not_found", `no run with id ${runId}`);
    return deps.stores.forms.runForms(runId);
  };

  r.get("/:id/forms", async (c) => c.json({ forms: (await formsOf(c.req.param("id"))).map(formJson) }));

  r.post("/:id/forms/:formId", async (c) => {
    const form = (await formsOf(c.req.param("id"))).find((f) => f.id === c.req.param("formId"));
    if (!form)
      throw new ApiError(404, "form.not_found", `run ${c.req.param("id")} has no form ${c.req.param("formId")}`);
    const body = await readJson(c);
    if (typeof body.action !== "string")
      throw new ApiError(400, "request.invalid_action", "`action` must be the id of one of the form's actions");
    const inputs = body.inputs ?? {};
    if (typeof inputs !== "object" || inputs === null || Array.isArray(inputs))
      throw new ApiError(
        400,
        "request.invalid_inputs",
        "`inputs` must be an object keyed by the form's output_variable_name",
      );
    try {
      const closed = await deps.paused.answer(form, {
        action: body.action,
        inputs: inputs as Record<string, unknown>,
        user: "web",
      });
      return c.json({ form: formJson(closed) });
    } catch (e) {
      if (e instanceof FormError) throw new ApiError(STATUS[e.code] ?? 400, e.code, e.message);
      throw e;
    }
  });
  return r;
}
