import { randomBytes } from "node:crypto";
import { WeftError } from "../ir/errors.js";
import type { FormDecision, FormRequest, HumanInputService, PendingForm } from "../ir/services.js";
import type { FormRecord, FormStore } from "../store/forms.js";
import { newId } from "../util/ids.js";

/** A form answer refused: unknown or closed form, wrong action, a missing or malformed value. */
export class FormError extends WeftError {}

export function pendingForm(f: FormRecord): PendingForm {
  return {
    formId: f.id,
    token: f.token,
    key: f.key,
    nodeId: f.nodeId,
    nodeTitle: f.nodeTitle,
    content: f.content,
    inputs: f.inputs,
    actions: f.actions,
    defaults: f.defaults,
    createdAt: f.createdAt,
    expiresAt: f.expiresAt,
  };
}

/**
 * Human-input forms kept in a FormStore, so a paused run survives its process: the first request of a node
 * execution creates the form; once the form is answered (or past its expiry) a resumed run gets the answer
 * (or the timeout).
 */
export class StoredHumanInput implements HumanInputService {
  constructor(private readonly forms: FormStore) {}

  async request(req: FormRequest): Promise<FormDecision> {
    let form =
      (await this.forms.formOf(req.runId, req.key)) ??
      (await this.forms.createForm({
        id: newId(),
        token: randomBytes(16).toString("base64url"),
        runId: req.runId,
        key: req.key,
        nodeId: req.nodeId,
        nodeTitle: req.nodeTitle,
        content: req.content,
        inputs: req.inputs,
        actions: req.actions,
        defaults: req.defaults,
        createdAt: req.now,
        expiresAt: req.timeoutMs === null ? null : req.now + req.timeoutMs,
        status: "waiting",
      }));
    if (form.status === "waiting" && form.expiresAt !== null && form.expiresAt <= req.now) {
      // An answer that raced the expiry and won stands: closeForm returns whichever close came first.
      form = (await this.forms.closeForm(form.id, { status: "timeout" }, req.now)) ?? form;
    }
    const pending = pendingForm(form);
    if (form.status === "submitted" && form.submission)
      return { status: "submitted", form: pending, action: form.submission.action, inputs: form.submission.inputs };
    if (form.status === "timeout") return { status: "timeout", form: pending };
    return { status: "waiting", form: pending };
  }
}

export interface FormAnswer {
  action: string;
  inputs: Record<string, unknown>;
  user?: string;
}

function isFileValue(v: unknown): boolean {
  return (
    !!v &&
    typeof v === "object" &&
    !Array.isArray(v) &&
    typeof (v as { transfer_method?: unknown }).transfer_method === "string"
  );
}

/** Check an answer against the form as Dify does: a listed action, every input given, values of the input's kind. */
export function checkAnswer(form: FormRecord, answer: FormAnswer): void {
  const where = `form "${form.nodeTitle || form.nodeId}"`;
  const actions = form.actions.map((a) => a.id);
  if (!actions.includes(answer.action)) {
    throw new FormError(
      "form.invalid_action",
      `${where}: action "${answer.action}" is not one of ${actions.join(", ")}`,
      {
        actions,
      },
    );
  }
  const byName = new Map(form.inputs.map((i) => [i.output_variable_name, i]));
  for (const name of Object.keys(answer.inputs)) {
    if (!byName.has(name)) {
      throw new FormError(
        "form.unknown_input",
        `${where} has no input "${name}"; its inputs: ${[...byName.keys()].join(", ") || "none"}`,
        {
          input: name,
        },
      );
    }
  }
  for (const input of form.inputs) {
    const name = input.output_variable_name;
    const v = answer.inputs[name];
    if (v === undefined || v === null)
      throw new FormError("form.missing_input", `${where}: input "${name}" is required`, { input: name });
    const bad = (why: string) =>
      new FormError("form.invalid_input", `${where}: input "${name}" ${why}`, { input: name });
    if (input.type === "file") {
      if (!isFileValue(v)) throw bad("expects one file");
    } else if (input.type === "file-list") {
      if (!Array.isArray(v) || !v.every(isFileValue)) throw bad("expects a list of files");
      const limit = Number(input.number_limits ?? 0);
      if (limit > 0 && v.length > limit) throw bad(`takes at most ${limit} files, got ${v.length}`);
    } else {
      if (typeof v !== "string") throw bad(`expects text, got ${JSON.stringify(v)}`);
      const src = input.option_source as { type?: string; value?: unknown } | undefined;
      if (input.type === "select" && src?.type === "constant" && Array.isArray(src.value) && !src.value.includes(v))
        throw bad(`must be one of ${JSON.stringify(src.value)}`);
    }
  }
}

/**
 * Record the answer to a waiting form (first answer wins, across processes). Refuses an unknown, answered or
 * expired form and an answer the form does not accept; the caller then resumes the run.
 */
export async function submitForm(
  forms: FormStore,
  formId: string,
  answer: FormAnswer,
  now: number,
): Promise<FormRecord> {
  const form = await forms.getForm(formId);
  if (!form) throw new FormError("form.not_found", `no form with id ${formId}`);
  if (form.status === "submitted")
    throw new FormError("form.submitted", `form "${form.nodeTitle || form.nodeId}" was already answered`);
  if (form.status === "timeout" || (form.expiresAt !== null && form.expiresAt <= now)) {
    if (form.status === "waiting") await forms.closeForm(form.id, { status: "timeout" }, now);
    throw new FormError(
      "form.expired",
      `form "${form.nodeTitle || form.nodeId}" expired before it was answered; the run takes its timeout path`,
    );
  }
  checkAnswer(form, answer);
  const submission = { ...answer, submittedAt: now };
  const closed = await forms.closeForm(form.id, { status: "submitted", submission }, now);
  if (closed?.status !== "submitted" || JSON.stringify(closed.submission) !== JSON.stringify(submission))
    throw new FormError("form.submitted", `form "${form.nodeTitle || form.nodeId}" was answered by someone else first`);
  return closed;
}
