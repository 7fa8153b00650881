/**
 * Issue 35's Must show: clients no one on the project wrote, installed from npm and pinned as dev dependencies.
 * - `dify-ai-provider` (the Vercel AI SDK provider for Dify) calls a Weft chat app on `/v1` with `generateText`
 *   (blocking) and `streamText` (streaming): the answer, the usage Dify's message_end carries (10 in, 5 out), and
 *   the conversation it continues.
 * - The MCP Inspector's CLI (`mcp-inspector --cli … --method tools/list | tools/call`) against `weft mcp serve FILE`
 *   over stdio: the app's one tool, its schema, and a call's result.
 */
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow } from "../../support/build.js";
import { reply } from "../../support/replay-server.js";
import { chatWorkflow, startV1Server, type V1Server } from "../../support/v1-apps.js";
import { WEFT_BIN } from "../../support/weft-bin.js";

const run = promisify(execFile);
const ROOT = resolve(import.meta.dirname, "../../..");
const require_ = createRequire(import.meta.url);
const has = (pkg: string) => {
  try {
    require_.resolve(`${pkg}/package.json`);
    return true;
  } catch {
    return existsSync(join(ROOT, "node_modules", pkg, "package.json"));
  }
};
const INSPECTOR = join(ROOT, "node_modules", ".bin", "mcp-inspector");

describe.skipIf(!has("dify-ai-provider") || !has("ai"))("dify-ai-provider against /v1 (issue 35)", () => {
  let s: V1Server;
  beforeAll(async () => {
    s = await startV1Server();
  }, 60_000);
  afterAll(async () => {
    await s?.stop();
  });

  it("generateText (blocking) and streamText (streaming) get the answer, Dify's usage and the conversation", async () => {
    const { createDifyProvider } = await import("dify-ai-provider");
    const { generateText, streamText } = await import("ai");
    const { key } = await s.app("provider-chat", chatWorkflow());
    const dify = createDifyProvider({ baseURL: s.v1, logger: false });

    s.llm.enqueue(reply.text("Hello from Weft."));
    const blocking = await generateText({
      model: dify("provider-chat", { apiKey: key, responseMode: "blocking", inputs: { name: "Ada" }, logger: false }),
      prompt: "hi",
      headers: { "user-id": "alice" },
    });
    expect(blocking.text).toBe("Hello from Weft. (turn 1, Ada)");
    expect(blocking.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    const meta = blocking.providerMetadata?.difyWorkflowData as Record<string, string> | undefined;
    expect(typeof meta?.conversationId).toBe("string");
    expect(meta!.conversationId!.length).toBeGreaterThan(0);

    s.llm.enqueue(reply.text("Streamed answer.", { chunks: ["Streamed ", "answer."] }));
    const streamed = streamText({
      model: dify("provider-chat", { apiKey: key, responseMode: "streaming", inputs: { name: "Ada" }, logger: false }),
      prompt: "again",
      headers: { "user-id": "alice", "chat-id": meta!.conversationId! },
    });
    let text = "";
    for await (const part of streamed.textStream) text += part;
    expect(text).toBe("Streamed answer. (turn 2, Ada)");
    expect(await streamed.usage).toMatchObject({ inputTokens: 10, outputTokens: 5, totalTokens: 15 });
    expect((await streamed.providerMetadata)?.difyWorkflowData).toMatchObject({ conversationId: meta!.conversationId });
  }, 60_000);
});

describe.skipIf(!existsSync(INSPECTOR))("the MCP Inspector CLI against weft mcp serve (issue 35)", () => {
  const dir = mkdtempSync(join(tmpdir(), "weft-inspector-"));
  const file = join(dir, "shout.json");
  const config = join(dir, "weft.config.json");
  beforeAll(() => {
    const wf = buildWorkflow({
      nodes: [
        {
          id: "start",
          type: "start",
          variables: [{ variable: "words", label: "Words", type: "text-input", required: true, max_length: 40 }],
        },
        {
          id: "t",
          type: "template-transform",
          template: "{{ w | upper }}!",
          variables: [{ variable: "w", value_selector: ["start", "words"] }],
        },
        { id: "end", type: "end", outputs: [{ variable: "shouted", value_selector: ["t", "output"] }] },
      ],
      edges: [
        ["start", "t"],
        ["t", "end"],
      ],
    });
    writeFileSync(file, JSON.stringify({ ...wf, name: "Shout it" }));
    writeFileSync(config, JSON.stringify({ db: join(dir, "weft.db"), files: { dir: join(dir, "files") } }));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  const inspect = async (...method: string[]) => {
    const { stdout } = await run(
      INSPECTOR,
      // The Inspector takes --config for itself, so the server's configuration goes in WEFT_CONFIG.
      ["--cli", WEFT_BIN, "mcp", "serve", file, ...method],
      { cwd: ROOT, timeout: 90_000, env: { ...process.env, WEFT_CONFIG: config, BROWSER: "none" } },
    );
    return JSON.parse(stdout);
  };

  it("tools/list shows the app's one tool with the start inputs as its schema", async () => {
    const listed = await inspect("--method", "tools/list");
    expect(listed.tools.map((t: { name: string }) => t.name)).toEqual(["Shout_it"]);
    expect(listed.tools[0].inputSchema).toMatchObject({
      type: "object",
      properties: { words: { type: "string", maxLength: 40 } },
      required: ["words"],
    });
  }, 120_000);

  it("tools/call runs the app and answers its end outputs", async () => {
    const called = await inspect("--method", "tools/call", "--tool-name", "Shout_it", "--tool-arg", "words=hey");
    expect(called.isError).toBeFalsy();
    expect(called.structuredContent).toEqual({ shouted: "HEY!" });
    expect(JSON.parse(called.content[0].text)).toEqual({ shouted: "HEY!" });
  }, 120_000);
});
