import { Hono } from "hono";
import { declaredInputs } from "../../engine/inputs.js";
import type { Workflow } from "../../ir/workflow.js";
import type { ServerDeps } from "../context.js";
import type { V1Env } from "./env.js";
import { DifyError } from "./errors.js";

const enabled = (v: unknown) => ({ enabled: !!(v && typeof v === "object" && (v as { enabled?: unknown }).enabled) });

/** Dify's `user_input_form`: one `{<control type>: {label, variable, required, …}}` per start variable. */
export function userInputForm(wf: Workflow): Array<Record<string, Record<string, unknown>>> {
  return (declaredInputs(wf)?.variables ?? []).map((v) => {
    const { type, label, variable, required, max_length, default: dflt, options, hide, ...rest } = v;
    return {
      [type]: {
        ...rest,
        label: label ?? variable,
        variable,
        required,
        max_length: max_length ?? null,
        default: dflt ?? "",
        options: options ?? [],
        hide: hide ?? false,
      },
    };
  });
}

/** `GET /v1/parameters` and `GET /v1/info`: the app's input form and chat features, its name and mode. */
export function metaRoutes(deps: ServerDeps): Hono<V1Env> {
  const r = new Hono<V1Env>();
  r.get("/parameters", async (c) => {
    const app = c.get("app");
    const current = await deps.apps.published(app.id);
    if (!current)
      throw new DifyError(
        400,
        "app_unavailable",
        "App unavailable: it has not been published yet (publish it in the studio or with `weft apps publish`).",
      );
    const f = (current.workflow.features ?? {}) as Record<string, unknown>;
    return c.json({
      opening_statement: typeof f.opening_statement === "string" ? f.opening_statement : "",
      suggested_questions: Array.isArray(f.suggested_questions) ? f.suggested_questions : [],
      suggested_questions_after_answer: enabled(f.suggested_questions_after_answer),
      speech_to_text: enabled(f.speech_to_text),
      text_to_speech: enabled(f.text_to_speech),
      retriever_resource: enabled(f.retriever_resource),
      annotation_reply: enabled(f.annotation_reply),
      more_like_this: enabled(f.more_like_this),
      sensitive_word_avoidance: enabled(f.sensitive_word_avoidance),
      user_input_form: userInputForm(current.workflow),
      file_upload: f.file_upload ?? {
        image: { enabled: false, number_limits: 3, detail: "high", transfer_methods: ["remote_url", "local_file"] },
      },
      // In MB: every upload is one request body, which the server caps at 10 MB.
      system_parameters: {
        file_size_limit: 10,
        image_file_size_limit: 10,
        audio_file_size_limit: 10,
        video_file_size_limit: 10,
        workflow_file_upload_limit: 10,
      },
    });
  });
  r.get("/info", (c) => {
    const app = c.get("app");
    return c.json({ name: app.name, description: app.description, tags: [], mode: app.mode, author_name: "" });
  });
  return r;
}
