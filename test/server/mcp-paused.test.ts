/**
 * An app with a human-input node published over MCP (issue 35, item 14), driven by the official MCP SDK
 * client: a call whose run pauses is an `isError` result that says it paused and how to answer the form —
 * over streamable HTTP (answer with the /api form endpoint, the run then finishes) and over stdio (`weft
 * resume`), where it used to fail with human_input.no_form_store.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, describe, expect, it } from "vitest";
import { buildWorkflow, tpl } from "../support/build.js";
import { WEFT_BIN } from "../support/weft-bin.js";
import { startTestServer } from "./helpers.js";

const TIMEOUT = 120_000;
const ROOT = resolve(import.meta.dirname, "../..");
const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const signOff = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "doc", label: "Doc", type: "text-input", required: true }] },
    {
      id: "ask",
      type: "human-input",
      title: "Sign off",
      form_content: "Sign off {{#start.doc#}}? {{#$output.why#}}",
      inputs: [{ type: "paragraph", output_variable_name: "why" }],
      user_actions: [{ id: "ok", title: "OK", button_style: "primary" }],
      timeout: 1,
      timeout_unit: "hour",
    },
    tpl("yes", "signed: {{ w }}", { w: ["ask", "why"] }),
    { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["yes", "output"] }] },
  ],
  edges: [
    ["start", "ask"],
    ["ask", "ok", "yes"],
    ["yes", "end"],
  ],
});

type Text = { type: string; text: string };

describe("a paused run over MCP", () => {
  it("over HTTP: isError saying it paused, with the form and the URL that answers it", {
    timeout: TIMEOUT,
  }, async () => {
    const s = await startTestServer();
    dirs.push(s.dir);
    const client = new Client({ name: "test", version: "1.0.0" });
    try {
      const res = await s.api("/api/apps", {
        method: "POST",
        json: { name: "Signer", mode: "workflow", workflow: signOff },
      });
      const appId = ((await res.json()) as { app: { id: string } }).app.id;
      await client.connect(
        new StreamableHTTPClientTransport(new URL(`${s.url}/api/apps/${appId}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${s.key}` } },
        }),
      );
      const r = await client.callTool({ name: "Signer", arguments: { doc: "plan" } });
      expect(r.isError).toBe(true);
      const text = (r.content as Text[])[0]!.text;
      const { runId, forms } = r._meta as { runId: string; forms: Array<{ id: string }> };
      expect(text).toContain(`run ${runId} paused`);
      expect(text).toContain("Sign off plan?");
      expect(text).toContain('ok ("OK")');
      expect(text).toContain("why (paragraph)");
      const url = `${s.url}/api/runs/${runId}/forms/${forms[0]!.id}`;
      expect(text).toContain(`POST ${url}`);

      const answer = await s.api(url.slice(s.url.length), {
        method: "POST",
        json: { action: "ok", inputs: { why: "fine" } },
      });
      expect(answer.status).toBe(200);
      const end = Date.now() + 30_000;
      let run: { status: string; outputs: unknown } = { status: "", outputs: null };
      while (run.status !== "succeeded" && Date.now() < end) {
        run = (await (await s.api(`/api/runs/${runId}`)).json()) as typeof run;
        if (run.status !== "succeeded") await new Promise((r) => setTimeout(r, 50));
      }
      expect(run).toMatchObject({ status: "succeeded", outputs: { out: "signed: fine" } });
    } finally {
      await client.close();
      await s.stop();
    }
  });

  it("over stdio: isError naming the `weft resume` command that answers it; resuming finishes the run", {
    timeout: TIMEOUT,
  }, async () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-mcp-paused-"));
    dirs.push(dir);
    const file = join(dir, "sign.json");
    writeFileSync(file, JSON.stringify({ ...signOff, name: "Signer" }));
    const config = join(dir, "weft.config.json");
    const db = join(dir, "weft.db");
    writeFileSync(config, JSON.stringify({ db, files: { dir: join(dir, "files") } }));
    const client = new Client({ name: "test", version: "1.0.0" });
    await client.connect(
      new StdioClientTransport({
        command: WEFT_BIN,
        args: ["mcp", "serve", file, "--config", config],
        cwd: ROOT,
        stderr: "pipe",
      }),
    );
    let runId = "";
    let formId = "";
    try {
      const r = await client.callTool({ name: "Signer", arguments: { doc: "plan" } });
      expect(r.isError).toBe(true);
      const text = (r.content as Text[])[0]!.text;
      ({ runId } = r._meta as { runId: string });
      formId = (r._meta as { forms: Array<{ id: string }> }).forms[0]!.id;
      expect(text).not.toContain("no_form_store");
      expect(text).toContain(`run ${runId} paused`);
      expect(text).toContain(`weft resume ${runId} --db ${db} --form ${formId}`);
    } finally {
      await client.close();
    }
    const { stdout } = await promisify(execFile)(
      WEFT_BIN,
      ["resume", runId, "--db", db, "--form", formId, "--action", "ok", "-i", "why=fine", "--json", "--config", config],
      { cwd: ROOT },
    );
    expect(JSON.parse(stdout)).toMatchObject({ status: "succeeded", outputs: { out: "signed: fine" } });
  });
});
