/**
 * Issue 35's service API differences, each checked the way the client that found it reads the API: Python's
 * requests (charset), literal HTTP as Dify's curl examples (paused payloads, empty conversation, upload
 * without user), the stream's sys values, and publishing what Dify serves.
 */
import { execFile } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { Workflow } from "../../../src/ir/workflow.js";
import { FILE_URL_TTL_S, FileSigner } from "../../../src/server/file-signing.js";
import { buildWorkflow, tpl } from "../../support/build.js";
import { v1ServerPerFile } from "../../support/per-file.js";
import { reply } from "../../support/replay-server.js";
import { branchingWorkflow, chatWorkflow, difyEvents } from "../../support/v1-apps.js";

const run = promisify(execFile);
// The signing key the server reads at start, so this test can mint an expired URL of its own.
const SIGNING_KEY = "parity-test-signing-key";
process.env.WEFT_FILES_SIGNING_KEY = SIGNING_KEY;
const s = v1ServerPerFile();

const post = (key: string, path: string, body: unknown) =>
  fetch(`${s.v1}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
const get = (key: string, path: string) => fetch(`${s.v1}${path}`, { headers: { authorization: `Bearer ${key}` } });
const events = (res: Response) => difyEvents(res.body as unknown as AsyncIterable<Uint8Array>);

/** A form between two templates: the run pauses until someone signs off. */
function signOff(mode: "workflow" | "advanced-chat"): Workflow {
  const tail =
    mode === "workflow"
      ? { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["yes", "output"] }] }
      : { id: "end", type: "answer", answer: "{{#yes.output#}}" };
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
        timeout: 1,
        timeout_unit: "hour",
      },
      tpl("yes", "signed: {{ w }}", { w: ["ask", "why"] }),
      tail,
    ],
    edges: [
      ["start", "draft"],
      ["draft", "ask"],
      ["ask", "ok", "yes"],
      ["yes", "end"],
    ],
  });
}

async function until<T>(what: string, f: () => Promise<T | undefined>, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("service API parity with Dify (issue 35)", () => {
  it("1: streams and JSON carry charset=utf-8, so Python's requests decodes CJK text of an iteration stream", async () => {
    const { key } = await s.app("cjk", branchingWorkflow());
    s.llm.enqueue(reply.text("简短而响亮。", { chunks: ["简短", "而响亮。"] }));
    const body = { inputs: { text: "你好 世界", mode: "each" }, response_mode: "streaming", user: "u" };
    const script = new URL("../../support/sse-utf8.py", import.meta.url).pathname;
    const { stdout } = await run("python3", [script, `${s.v1}/workflows/run`, key, JSON.stringify(body)]);
    const out = JSON.parse(stdout);
    expect(out).toMatchObject({ encoding: "utf-8", failed: 0, text: "简短而响亮。", result: "你好 世界" });
    expect(out.events).toContain("iteration_next");
    const json = await get(key, "/parameters");
    expect(json.headers.get("content-type")).toBe("application/json; charset=utf-8");
    const err = await get(key, "/nowhere");
    expect(err.headers.get("content-type")).toBe("application/json; charset=utf-8");
  }, 60_000);

  it("2: a blocking run that pauses answers with Dify's paused payload, whose form_token answers the form", async () => {
    const { appId, key } = await s.app("sign", signOff("workflow"));
    const res = await post(key, "/workflows/run", { inputs: {}, response_mode: "blocking", user: "u" });
    expect(res.status).toBe(200);
    const paused = (await res.json()) as any;
    const runId = paused.workflow_run_id;
    expect(paused.task_id).toBe(runId);
    expect(Object.keys(paused.data).sort()).toEqual(
      [
        "id",
        "workflow_id",
        "status",
        "outputs",
        "error",
        "elapsed_time",
        "total_tokens",
        "total_steps",
        "created_at",
        "finished_at",
        "paused_nodes",
        "reasons",
      ].sort(),
    );
    expect(paused.data).toMatchObject({
      id: runId,
      workflow_id: appId,
      status: "paused",
      outputs: {},
      error: null,
      finished_at: null,
      paused_nodes: ["ask"],
    });
    const reason = paused.data.reasons[0];
    expect(reason).toMatchObject({
      TYPE: "human_input_required",
      node_id: "ask",
      node_title: "Sign off",
      form_content: "Sign off draft 1? {{#$output.why#}}",
      actions: [{ id: "ok", title: "OK" }],
      display_in_ui: true,
      resolved_default_values: {},
    });
    expect(typeof reason.form_id).toBe("string");
    expect(typeof reason.form_token).toBe("string");
    expect(reason.expiration_time).toBeGreaterThan(Date.now() / 1000);

    const answer = await post(key, `/form/human_input/${reason.form_token}`, {
      inputs: { why: "fine" },
      action: "ok",
      user: "u",
    });
    expect(answer.status).toBe(200);
    const done = await until("the run to finish", async () => {
      const r = (await (await get(key, `/workflows/run/${runId}`)).json()) as any;
      return r.status === "succeeded" ? r : undefined;
    });
    expect(done.outputs).toEqual({ out: "signed: fine" });
  }, 60_000);

  it("2: the streamed workflow_paused carries the same reasons, form_token included", async () => {
    const { key } = await s.app("sign-stream", signOff("workflow"));
    const evs = await events(await post(key, "/workflows/run", { inputs: {}, response_mode: "streaming", user: "u" }));
    const required = evs.find((e) => e.event === "human_input_required")!;
    const pause = evs.at(-1)!;
    expect(pause.event).toBe("workflow_paused");
    expect(pause.data.outputs).toEqual({});
    expect(pause.data.reasons).toEqual([
      expect.objectContaining({
        TYPE: "human_input_required",
        form_id: required.data.form_id,
        form_token: required.data.form_token,
        expiration_time: required.data.expiration_time,
      }),
    ]);
  }, 60_000);

  it("2: a blocking chat turn that pauses answers with Dify's paused chat payload", async () => {
    const { key } = await s.app("sign-chat", signOff("advanced-chat"));
    const res = await post(key, "/chat-messages", { query: "sign", inputs: {}, response_mode: "blocking", user: "u" });
    const body = (await res.json()) as any;
    expect(res.status).toBe(200);
    expect(body).toMatchObject({ event: "workflow_paused", mode: "advanced-chat", answer: "" });
    expect(body.id).toBe(body.message_id);
    expect(body.data).toMatchObject({
      id: body.message_id,
      conversation_id: body.conversation_id,
      workflow_run_id: body.workflow_run_id,
      status: "paused",
      paused_nodes: ["ask"],
    });
    expect(body.metadata.usage).toMatchObject({ prompt_tokens: 0, completion_tokens: 0 });
    expect(typeof body.data.reasons[0].form_token).toBe("string");
  }, 60_000);

  it("4: messages with an empty conversation_id is an empty page; an upload without user is Dify's default user", async () => {
    const { key } = await s.app(
      "empty",
      buildWorkflow({ mode: "advanced-chat", nodes: chatNodes("x"), edges: chatEdges }),
    );
    const page = await get(key, "/messages?conversation_id=&user=abc-123&first_id=&limit=20");
    expect(page.status).toBe(200);
    expect(await page.json()).toEqual({ limit: 20, has_more: false, data: [] });

    const form = new FormData();
    form.append("file", new Blob(["hello"], { type: "text/plain" }), "hello.txt");
    const up = await fetch(`${s.v1}/files/upload`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}` },
      body: form,
    });
    expect(up.status).toBe(201);
    expect(((await up.json()) as any).created_by).toBe("DEFAULT-USER");
  }, 60_000);

  it("5: sys.workflow_id is the id workflow_started names; the first chat turn's sys.dialogue_count is 1", async () => {
    const { key } = await s.app(
      "sys",
      buildWorkflow({
        mode: "advanced-chat",
        nodes: chatNodes("{{#sys.workflow_id#}} turn {{#sys.dialogue_count#}}"),
        edges: chatEdges,
      }),
    );
    const first = await events(
      await post(key, "/chat-messages", { query: "a", inputs: {}, response_mode: "streaming", user: "u" }),
    );
    const workflowId = first[0]!.data.workflow_id;
    const answer = (evs: any[]) =>
      evs
        .filter((e) => e.event === "message")
        .map((e) => e.answer)
        .join("");
    expect(answer(first)).toBe(`${workflowId} turn 1`);
    const second = await events(
      await post(key, "/chat-messages", {
        query: "b",
        inputs: {},
        response_mode: "streaming",
        user: "u",
        conversation_id: first[0]!.conversation_id,
      }),
    );
    expect(answer(second)).toBe(`${workflowId} turn 2`);
  }, 60_000);

  it("7: files of an app with file upload off are ignored, never fetched; an app that takes files keeps them", async () => {
    let hits = 0;
    const host = createServer((_req, res) => {
      hits++;
      res.writeHead(200, { "content-type": "image/png" }).end("png");
    });
    await new Promise<void>((r) => host.listen(0, "127.0.0.1", r));
    const image = `http://127.0.0.1:${(host.address() as AddressInfo).port}/cat.png`;
    try {
      const files = [{ type: "image", transfer_method: "remote_url", url: image }];
      // The model node has vision on (it would read sys.files); the app's file upload is off, as in Dify's docs example.
      const seeing = () => {
        const wf = chatWorkflow();
        wf.nodes.find((n) => n.id === "reply")!.config.vision = { enabled: true };
        return wf;
      };
      const off = await s.app("no-upload", seeing());
      s.llm.enqueue(reply.text("A cat."));
      const body = { query: "what is this?", inputs: {}, response_mode: "blocking", user: "u", files };
      const res = await post(off.key, "/chat-messages", body);
      expect(res.status).toBe(200);
      expect(((await res.json()) as any).answer).toContain("A cat.");
      expect(hits).toBe(0);
      expect(JSON.stringify(s.llm.last()?.body)).not.toContain("cat.png");

      // (Its model does not look at them: the file host is loopback, which the SSRF guard refuses to fetch.)
      const wf = chatWorkflow();
      wf.features = { file_upload: { enabled: true, allowed_file_types: ["image"] } };
      const on = await s.app("upload", wf);
      s.llm.enqueue(reply.text("Still a cat."));
      const taken = (await (await post(on.key, "/chat-messages", body)).json()) as any;
      const msgs = (await (
        await get(on.key, `/messages?user=u&conversation_id=${taken.conversation_id}`)
      ).json()) as any;
      expect(msgs.data[0].message_files.map((f: any) => f.url)).toEqual([image]);
    } finally {
      host.close();
    }
  }, 60_000);

  it("8: files a tool makes get Dify's signed, expiring URLs, which the server serves and checks", async () => {
    const { key } = await s.app("export", exporter());
    const res = await post(key, "/workflows/run", { inputs: {}, response_mode: "blocking", user: "u" });
    const data = ((await res.json()) as any).data;
    expect(data.error).toBeNull();
    expect(data.status).toBe("succeeded");
    const file = data.outputs.doc[0];
    const url = new URL(file.url);
    expect(url.origin).toBe(s.url);
    expect(url.pathname).toMatch(/^\/files\/[0-9a-f]{64}\.md\/file-preview$/);
    expect([...url.searchParams.keys()]).toEqual(["timestamp", "nonce", "sign"]);
    expect(data.files.map((f: any) => f.filename)).toEqual([file.filename]);

    const served = await fetch(url);
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toContain("text/markdown");
    expect(await served.text()).toBe("# Plan\n\nBody.");

    const tampered = new URL(url);
    tampered.searchParams.set("sign", `${url.searchParams.get("sign")!.slice(0, -2)}AA`);
    const bad = await fetch(tampered);
    expect(bad.status).toBe(403);
    expect(((await bad.json()) as any).code).toBe("forbidden");
    const other = new URL(url.href.replace(/\/files\/[0-9a-f]{64}/, `/files/${"0".repeat(64)}`));
    expect((await fetch(other)).status).toBe(403);

    const id = url.pathname.split("/")[2]!;
    const old = new FileSigner(SIGNING_KEY, () => Date.now() - (FILE_URL_TTL_S + 5) * 1000);
    const expired = await fetch(`${s.url}${old.path({ ...file, related_id: id.slice(0, 64), extension: ".md" })}`);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as any).message).toContain("expired");

    const evs = await events(await post(key, "/workflows/run", { inputs: {}, response_mode: "streaming", user: "u" }));
    const node = evs.find((e) => e.event === "node_finished" && e.data.node_id === "export")!;
    expect(node.data.files[0].url).toContain("/file-preview?timestamp=");
    expect((await fetch(node.data.files[0].url)).status).toBe(200);
  }, 60_000);

  it("6: a version whose only errors Dify runs is published with allow_warnings and served; editors see its findings", async () => {
    const imported = await s.api("/api/apps", { method: "POST", json: { name: "one-branch", mode: "workflow" } });
    const { app } = (await imported.json()) as any;
    const saved = await s.api(`/api/apps/${app.id}/draft`, { method: "PUT", json: { workflow: oneBranch() } });
    expect(saved.status).toBe(200);
    const strict = await s.api(`/api/apps/${app.id}/publish`, { method: "POST", json: {} });
    expect(strict.status).toBe(422);
    expect(((await strict.json()) as any).error.message).toContain("allow_warnings");
    const loose = await s.api(`/api/apps/${app.id}/publish`, { method: "POST", json: { allow_warnings: true } });
    expect(loose.status).toBe(200);
    const published = (await loose.json()) as any;
    expect(published.warnings.map((w: any) => [w.code, w.severity])).toContainEqual(["ref.not_available", "warning"]);

    const { key } = await s.deps.stores.service.createAppKey(app.id);
    const res = await post(key, "/workflows/run", { inputs: { go: "yes" }, response_mode: "blocking", user: "u" });
    expect(res.status).toBe(200);
    expect(((await res.json()) as any).data).toMatchObject({ status: "succeeded", outputs: { out: "made" } });
    const versions = (await (await s.api(`/api/apps/${app.id}/versions`)).json()) as any;
    const live = versions.versions.find((v: any) => v.published);
    expect(live.findings.map((f: any) => f.code)).toContain("ref.not_available");
  }, 60_000);
});

/** A built-in tool that makes a file (md_exporter's md_to_md), output by the End node. */
function exporter(): Workflow {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [] },
      {
        id: "export",
        type: "tool",
        provider_id: "bowenliang123/md_exporter/md_exporter",
        provider_type: "builtin",
        tool_name: "md_to_md",
        tool_parameters: { md_text: { type: "mixed", value: "# Plan\n\nBody." } },
      },
      { id: "end", type: "end", outputs: [{ variable: "doc", value_selector: ["export", "files"] }] },
    ],
    edges: [
      ["start", "export"],
      ["export", "end"],
    ],
  });
}

function chatNodes(answer: string) {
  return [
    { id: "start", type: "start", variables: [] },
    { id: "answer", type: "answer", answer },
  ];
}
const chatEdges: Array<[string, string]> = [["start", "answer"]];

/** `made` exists only when `go` is "yes": Dify runs it (the other branch reads nothing), Weft's analyser flags the read. */
function oneBranch(): Workflow {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "go", label: "Go", type: "text-input", required: true }] },
      {
        id: "branch",
        type: "if-else",
        cases: [
          {
            case_id: "true",
            logical_operator: "and",
            conditions: [{ variable_selector: ["start", "go"], comparison_operator: "is", value: "yes" }],
          },
        ],
      },
      tpl("made", "made"),
      { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["made", "output"] }] },
    ],
    edges: [
      ["start", "branch"],
      ["branch", "true", "made"],
      ["branch", "false", "end"],
      ["made", "end"],
    ],
  });
}
