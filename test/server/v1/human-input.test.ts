/**
 * Human input in the server: a form's timeout takes the node's timeout path (also when the timer is armed
 * by a restarted server), the /api form endpoints the web run panel uses answer a paused run, and a chat
 * turn that pauses keeps its message `paused` until the answer finishes the turn.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { Workflow } from "../../../src/ir/workflow.js";
import { startServer } from "../../../src/server/index.js";
import { buildWorkflow, tpl } from "../../support/build.js";
import { difyEvents } from "../../support/v1-apps.js";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const HOUR = 3_600_000;

function flow(timeoutMs: number, mode: "workflow" | "advanced-chat" = "workflow"): Workflow {
  const tail =
    mode === "workflow"
      ? { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["agg", "output"] }] }
      : { id: "end", type: "answer", answer: "{{#agg.output#}}" };
  return buildWorkflow({
    mode,
    nodes: [
      { id: "start", type: "start", variables: [] },
      tpl("draft", "draft 1"),
      {
        id: "ask",
        type: "human-input",
        title: "Sign off",
        form_content: "Sign off {{#draft.output#}}? {{#$output.why#}}",
        inputs: [{ type: "paragraph", output_variable_name: "why" }],
        user_actions: [{ id: "ok", title: "OK", button_style: "primary" }],
        timeout: timeoutMs / HOUR,
        timeout_unit: "hour",
      },
      tpl("yes", "signed: {{ w }}", { w: ["ask", "why"] }),
      tpl("late", "expired"),
      {
        id: "agg",
        type: "variable-aggregator",
        output_type: "string",
        variables: [
          ["yes", "output"],
          ["late", "output"],
        ],
      },
      tail,
    ],
    edges: [
      ["start", "draft"],
      ["draft", "ask"],
      ["ask", "ok", "yes"],
      ["ask", "__timeout", "late"],
      ["yes", "agg"],
      ["late", "agg"],
      ["agg", "end"],
    ],
  });
}

async function server(db: string) {
  const s = await startServer({ db, port: 0, webDir: "/nonexistent" });
  const { key } = await s.deps.apps.createKey("t");
  const api = (path: string, json?: unknown) =>
    fetch(`${s.url}${path}`, {
      method: json === undefined ? "GET" : "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: json === undefined ? undefined : JSON.stringify(json),
    });
  return { s, api };
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 60_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const statusOf = async (api: (p: string) => Promise<Response>, runId: string, want: string) =>
  until(`run ${runId} ${want}`, async () => {
    const r = (await (await api(`/api/runs/${runId}`)).json()) as { status: string; outputs: Record<string, unknown> };
    return r.status === want ? r : undefined;
  });

function tmpDb(): string {
  const d = mkdtempSync(join(tmpdir(), "weft-hi-"));
  dirs.push(d);
  return join(d, "weft.db");
}

describe("human input in the server", () => {
  it("answers a paused run through the /api form endpoints", async () => {
    const { s, api } = await server(tmpDb());
    try {
      const { app } = await s.deps.apps.createApp({ name: "sign", mode: "workflow" }, flow(HOUR), "create");
      const { runId } = (await (await api(`/api/apps/${app.id}/runs`, { inputs: {} })).json()) as { runId: string };
      await statusOf(api, runId, "paused");
      const { forms } = (await (await api(`/api/runs/${runId}/forms`)).json()) as { forms: any[] };
      expect(forms).toHaveLength(1);
      expect(forms[0]).toMatchObject({
        nodeId: "ask",
        nodeTitle: "Sign off",
        status: "waiting",
        content: "Sign off draft 1? {{#$output.why#}}",
      });
      expect(forms[0].token).toBeUndefined();

      const missing = await api(`/api/runs/${runId}/forms/${forms[0].id}`, { action: "ok", inputs: {} });
      expect(missing.status).toBe(400);
      expect(((await missing.json()) as any).error.code).toBe("form.missing_input");
      const ok = await api(`/api/runs/${runId}/forms/${forms[0].id}`, { action: "ok", inputs: { why: "fine" } });
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as any).form).toMatchObject({
        status: "submitted",
        submission: { action: "ok", inputs: { why: "fine" } },
      });
      expect((await statusOf(api, runId, "succeeded")).outputs).toEqual({ out: "signed: fine" });
      const again = await api(`/api/runs/${runId}/forms/${forms[0].id}`, { action: "ok", inputs: { why: "x" } });
      expect(again.status).toBe(409);
    } finally {
      await s.close();
    }
  }, 60_000);

  it("takes the timeout path when nobody answers, also after a restart", async () => {
    const db = tmpDb();
    let { s, api } = await server(db);
    const { app } = await s.deps.apps.createApp({ name: "late", mode: "workflow" }, flow(1500), "create");
    // Timed out while this server runs.
    const first = (await (await api(`/api/apps/${app.id}/runs`, { inputs: {} })).json()) as { runId: string };
    expect((await statusOf(api, first.runId, "succeeded")).outputs).toEqual({ out: "expired" });

    // Paused, the server stops, and the form expires while a new server runs on the same database.
    const second = (await (await api(`/api/apps/${app.id}/runs`, { inputs: {} })).json()) as { runId: string };
    await statusOf(api, second.runId, "paused");
    await s.close();
    ({ s, api } = await server(db));
    try {
      expect((await statusOf(api, second.runId, "succeeded")).outputs).toEqual({ out: "expired" });
      const forms = await s.deps.stores.forms.runForms(second.runId);
      expect(forms.map((f) => f.status)).toEqual(["timeout"]);
      const attempts = await s.deps.runs.attempts(second.runId);
      expect(attempts.filter((a) => a.nodeId === "draft")).toHaveLength(1);
    } finally {
      await s.close();
    }
  }, 90_000);

  it("keeps a paused chat turn's message paused until the answer finishes the turn", async () => {
    const { s } = await server(tmpDb());
    try {
      const { app } = await s.deps.apps.createApp(
        { name: "chat-sign", mode: "advanced-chat" },
        flow(HOUR, "advanced-chat"),
        "create",
      );
      const { key } = await s.deps.stores.service.createAppKey(app.id);
      const v1 = (path: string, json?: unknown) =>
        fetch(`${s.url}/v1${path}`, {
          method: json === undefined ? "GET" : "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: json === undefined ? undefined : JSON.stringify(json),
        });
      const res = await v1("/chat-messages", { query: "sign it", inputs: {}, user: "u", response_mode: "streaming" });
      const evs: any[] = await difyEvents(res.body as unknown as AsyncIterable<Uint8Array>);
      expect(evs.map((e) => e.event).slice(-2)).toEqual(["human_input_required", "workflow_paused"]);
      const { conversation_id: cid, workflow_run_id: runId } = evs[0];
      const token = evs.at(-2).data.form_token;

      const paused = (await (await v1(`/messages?user=u&conversation_id=${cid}`)).json()) as any;
      expect(paused.data.map((m: any) => [m.query, m.status])).toEqual([["sign it", "paused"]]);

      expect((await v1(`/form/human_input/${token}`, { inputs: { why: "yes" }, action: "ok", user: "u" })).status).toBe(
        200,
      );
      await until("the turn to finish", async () => {
        const m = ((await (await v1(`/messages?user=u&conversation_id=${cid}`)).json()) as any).data[0];
        return m.status === "normal" ? m : undefined;
      });
      const done = ((await (await v1(`/messages?user=u&conversation_id=${cid}`)).json()) as any).data[0];
      expect(done).toMatchObject({ query: "sign it", answer: "signed: yes", status: "normal" });
      expect((await s.deps.stores.conversations.get(cid))!.dialogueCount).toBe(1);
      expect((await s.deps.runs.getRun(runId))!.status).toBe("succeeded");
    } finally {
      await s.close();
    }
  }, 60_000);
});
