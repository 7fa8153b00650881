import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  loadDomain,
  PINNED_NOW,
  SopBenchError,
  SopBenchToolService,
  scoreDomain,
} from "../../src/eval/sopbench/index.js";
import type { Tools } from "./solvers/client.js";
import { REFERENCE_SOLVERS } from "./solvers/index.js";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
// The built server (the test setup builds dist/ from src/), as users start it.
const SERVER = "dist/eval/sopbench/mcp-server.js";

async function connect(domain: string, extra: string[] = []): Promise<Client> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [SERVER, "--domain", domain, ...extra],
    cwd: ROOT,
    // The SDK passes only a few variables by default; the server must find the corpus where this test does
    // (WEFT_CORPUS_DIR). Without it the server exited at once and the test saw only "Connection closed".
    env: process.env as Record<string, string>,
    stderr: "pipe",
  });
  let stderr = "";
  transport.stderr?.on("data", (d: Buffer) => {
    if (stderr.length < 10_000) stderr += d.toString();
  });
  const client = new Client({ name: "sopbench-test", version: "0.0.0" });
  try {
    await client.connect(transport);
  } catch (e) {
    throw new Error(`the MCP server for ${domain} did not connect: ${(e as Error).message}; it said: ${stderr}`);
  }
  return client;
}

type TextContent = { type: string; text: string };
const textOf = (r: unknown) => ((r as { content: TextContent[] }).content[0] as TextContent).text;

/** The solvers' tool client, backed by an MCP client: JSON text is parsed back, isError becomes a typed error. */
function mcpTools(client: Client): Tools {
  const call = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args });
    const text = textOf(r);
    if (r.isError) {
      const code = String((r._meta as { code?: string } | undefined)?.code ?? "sopbench.tool_error");
      throw new SopBenchError(code, text.replace(/^Error: /, ""));
    }
    try {
      return JSON.parse(text) as unknown;
    } catch {
      return text;
    }
  };
  return {
    call,
    tryCall: (name, args) =>
      call(name, args).catch((e: unknown) => (e instanceof SopBenchError ? e : Promise.reject(e))),
    now: () => new Date(PINNED_NOW),
  };
}

describe("MCP server over stdio", () => {
  let v1: Client;
  let video: Client;
  beforeAll(async () => {
    [v1, video] = await Promise.all([connect("referral_abuse_detection_v1"), connect("video_annotation")]);
  });
  afterAll(async () => {
    await Promise.all([v1?.close(), video?.close()]);
  });

  it("lists the domain's tools with their JSON Schemas", async () => {
    const { tools } = await v1.listTools();
    const direct = new SopBenchToolService("referral_abuse_detection_v1").list();
    expect(tools.map((t) => t.name)).toEqual(direct.map((s) => s.name));
    expect(tools[0]?.inputSchema).toEqual(direct[0]?.parameters);
    expect((await video.listTools()).tools).toHaveLength(26);
  });

  it("answers every v1 task exactly as the in-process service does", async () => {
    const direct = new SopBenchToolService("referral_abuse_detection_v1");
    for (const task of loadDomain("referral_abuse_detection_v1").tasks) {
      for (const name of ["investigate_account", "analyze_traffic_patterns"]) {
        const args = { account_id: task.inputs.account_id };
        const viaMcp = await v1.callTool({ name, arguments: args });
        const inProc = await direct.invoke({ providerId: direct.providerId, toolName: name, parameters: args });
        expect(viaMcp.isError).toBeFalsy();
        expect(textOf(viaMcp)).toBe(inProc.text);
      }
    }
  });

  it("reports schema breaks and tool refusals as isError results with the original text", async () => {
    const bad = await v1.callTool({ name: "investigate_account", arguments: { account_id: 7 } });
    expect(bad.isError).toBe(true);
    expect(textOf(bad)).toBe("Error: Invalid arguments for investigate_account: account_id must be string");
    expect(bad._meta).toMatchObject({ code: "sopbench.invalid_args" });
    const missing = await v1.callTool({ name: "investigate_account", arguments: { account_id: "ACC0" } });
    expect(missing.isError).toBe(true);
    expect(textOf(missing)).toBe("Error: Account not found: ACC0");
    const unknown = await v1.callTool({ name: "no_such_tool", arguments: {} });
    expect(unknown._meta).toMatchObject({ code: "sopbench.unknown_tool" });
  });

  it("stubs return null; chained lookups work across calls", async () => {
    const stub = await video.callTool({ name: "checkProcessingStatus", arguments: { video_id: "vid_00178" } });
    expect(textOf(stub)).toBe("null");
    const fmt = JSON.parse(
      textOf(await video.callTool({ name: "validateVideoFormat", arguments: { video_id: "vid_00178" } })),
    );
    const od = JSON.parse(
      textOf(
        await video.callTool({
          name: "performObjectDetection",
          arguments: { video_id: "vid_00178", video_path: fmt.video_path },
        }),
      ),
    );
    expect(od).toMatchObject({ predicted_object: "bicyclists", output_format_object_detection: "json" });
  });

  for (const domain of ["customer_service", "referral_abuse_detection_v2", "warehouse_package_inspection"]) {
    it(`${domain}: the reference solver scores the same through MCP as in process`, { timeout: 90_000 }, async () => {
      const client = await connect(domain);
      try {
        const solve = REFERENCE_SOLVERS[domain];
        if (!solve) throw new Error(domain);
        const viaMcp = await scoreDomain(domain, (t) => solve(t, {}, mcpTools(client)), { concurrency: 1 });
        const inProc = await scoreDomain(domain, (t) => solve(t));
        expect(viaMcp.errors).toBe(0);
        expect(viaMcp.strictCorrect).toBe(inProc.strictCorrect);
        expect(viaMcp.rows.map((r) => r.fields)).toEqual(inProc.rows.map((r) => r.fields));
      } finally {
        await client.close();
      }
    });
  }

  it("passes environment options (validation mode) from the command line", async () => {
    const strict = await connect("dangerous_goods", ["--validation", "strict"]);
    try {
      const r = await strict.callTool({
        name: "calculate_sds_label_score",
        arguments: { product_id: "P1_3191", sds_label_text: "x" },
      });
      expect(r.isError).toBe(true);
      expect(textOf(r)).toMatch(/product_id must match pattern/);
    } finally {
      await strict.close();
    }
  });

  it("refuses a bad --domain with a typed message and exit code 2", () => {
    const r = spawnSync(process.execPath, [SERVER, "--domain", "nope"], {
      cwd: ROOT,
      encoding: "utf8",
    });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("sopbench.unknown_domain");
    expect(r.stdout).toBe("");
    const none = spawnSync(process.execPath, [SERVER], { cwd: ROOT, encoding: "utf8" });
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/--domain: is required/);
  });
});
