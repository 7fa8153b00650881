/**
 * Issue 35: Dify's paused payloads tell a service-API caller where a form is answered. A form delivered by email
 * names `approval_channels: ["email"]`; without an enabled web-app delivery there is no `form_token` an `app-…`
 * key may use (Dify's `disposition_for_surface` for the service API), in the blocking answer, the streamed
 * `human_input_required` and `workflow_paused` alike.
 */
import { describe, expect, it } from "vitest";
import type { Workflow } from "../../../src/ir/workflow.js";
import { buildWorkflow, tpl } from "../../support/build.js";
import { v1ServerPerFile } from "../../support/per-file.js";
import { difyEvents } from "../../support/v1-apps.js";

const s = v1ServerPerFile();

const post = (key: string, path: string, body: unknown) =>
  fetch(`${s.v1}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

const webapp = { id: "5f1c6f4e-0000-4000-8000-000000000001", type: "webapp", enabled: true, config: {} };
const email = (enabled: boolean) => ({
  id: "5f1c6f4e-0000-4000-8000-000000000002",
  type: "email",
  enabled,
  config: {
    recipients: { whole_workspace: false, items: [{ type: "external", email: "boss@example.com" }] },
    subject: "Sign off",
    body: "{{#url#}}",
    debug_mode: false,
  },
});

function signOff(mode: "workflow" | "advanced-chat", delivery: unknown[] | undefined): Workflow {
  const tail =
    mode === "workflow"
      ? { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["yes", "output"] }] }
      : { id: "end", type: "answer", answer: "{{#yes.output#}}" };
  return buildWorkflow({
    mode,
    nodes: [
      { id: "start", type: "start", variables: [] },
      {
        id: "ask",
        type: "human-input",
        title: "Sign off",
        form_content: "Sign off? {{#$output.why#}}",
        inputs: [{ type: "paragraph", output_variable_name: "why" }],
        user_actions: [{ id: "ok", title: "OK", button_style: "primary" }],
        timeout: 1,
        timeout_unit: "hour",
        ...(delivery ? { delivery_methods: delivery } : {}),
      },
      tpl("yes", "signed: {{ w }}", { w: ["ask", "why"] }),
      tail,
    ],
    edges: [
      ["start", "ask"],
      ["ask", "ok", "yes"],
      ["yes", "end"],
    ],
  });
}

async function blockingReason(name: string, delivery: unknown[] | undefined) {
  const { key } = await s.app(name, signOff("workflow", delivery));
  const res = await post(key, "/workflows/run", { inputs: {}, response_mode: "blocking", user: "u" });
  expect(res.status).toBe(200);
  const body = (await res.json()) as any;
  expect(body.data.status).toBe("paused");
  return { key, reason: body.data.reasons[0] };
}

describe("approval_channels in /v1 paused payloads (issue 35)", () => {
  it("web app and email delivery: the token answers the form and approval_channels names email", async () => {
    const { key, reason } = await blockingReason("both", [webapp, email(true)]);
    expect(reason.approval_channels).toEqual(["email"]);
    expect(typeof reason.form_token).toBe("string");
    const answer = await post(key, `/form/human_input/${reason.form_token}`, {
      inputs: { why: "ok" },
      action: "ok",
      user: "u",
    });
    expect(answer.status).toBe(200);
  }, 60_000);

  it("email only: no form_token for an app key, approval_channels says where the form is answered", async () => {
    const { reason } = await blockingReason("email-only", [{ ...webapp, enabled: false }, email(true)]);
    expect(reason).toMatchObject({ TYPE: "human_input_required", form_token: null, approval_channels: ["email"] });
  }, 60_000);

  it("a disabled email delivery or one without recipients is no channel; no delivery methods keeps the token", async () => {
    const disabled = await blockingReason("email-off", [webapp, email(false)]);
    expect(disabled.reason.approval_channels).toEqual([]);
    expect(typeof disabled.reason.form_token).toBe("string");
    const none = await blockingReason("no-delivery", undefined);
    expect(none.reason.approval_channels).toEqual([]);
    expect(typeof none.reason.form_token).toBe("string");
  }, 60_000);

  it("streamed: human_input_required and workflow_paused carry the same disposition (workflow and chat)", async () => {
    for (const mode of ["workflow", "advanced-chat"] as const) {
      const { key } = await s.app(`stream-${mode}`, signOff(mode, [{ ...webapp, enabled: false }, email(true)]));
      const path = mode === "workflow" ? "/workflows/run" : "/chat-messages";
      const res = await post(key, path, { query: "sign", inputs: {}, response_mode: "streaming", user: "u" });
      const evs = await difyEvents(res.body as unknown as AsyncIterable<Uint8Array>);
      const required = evs.find((e) => e.event === "human_input_required")!;
      expect(required.data).toMatchObject({ form_token: null, approval_channels: ["email"] });
      const pause = evs.find((e) => e.event === "workflow_paused")!;
      expect(pause.data.reasons[0]).toMatchObject({ form_token: null, approval_channels: ["email"] });
    }
  }, 60_000);
});
