/**
 * A configured MCP server as a tool provider, through the official SDK client: stdio (`command`) or
 * streamable HTTP (`url`). It connects on first use and stays connected until closed, so one process or
 * session serves every call of a run (and of the runs after it).
 */
import { isDeepStrictEqual } from "node:util";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { getDefaultEnvironment, StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { FileService, FileValue, ToolResult } from "../../ir/services.js";
import { checkHostileValue, type HostileProblem, readHostileJson } from "../../util/hostile-json.js";
import { ToolError } from "../errors.js";
import { extensionForMime } from "../mime.js";
import type { McpServerConfig } from "./config.js";
import { interpolateAll, type ProvidedTool, type ProviderCall, type ToolProvider } from "./provider.js";

type Content = { type: string; text?: string; data?: string; mimeType?: string; resource?: Record<string, unknown> };

export class McpProvider implements ToolProvider {
  readonly kind = "mcp" as const;
  private client?: Promise<Client>;
  private listed?: ProvidedTool[];
  private stderrTail = "";

  constructor(
    readonly id: string,
    private readonly cfg: McpServerConfig,
    private readonly baseDir: string,
  ) {}

  private where(): string {
    return "command" in this.cfg
      ? `tools.mcp.${this.id} (${this.cfg.command})`
      : `tools.mcp.${this.id} (${this.cfg.url})`;
  }

  private connect(): Promise<Client> {
    if (!this.client) {
      this.client = this.open().catch((e: unknown) => {
        this.client = undefined;
        const tail = this.stderrTail.trim() ? `; its stderr: ${this.stderrTail.trim().slice(-400)}` : "";
        throw new ToolError(
          "tool.mcp_unavailable",
          `cannot connect to the MCP server ${this.where()}: ${(e as Error)?.message ?? e}${tail}`,
          {
            provider: this.id,
          },
        );
      });
    }
    return this.client;
  }

  private async open(): Promise<Client> {
    const client = new Client({ name: "weft", version: "0.1.0" });
    const cfg = this.cfg;
    if ("command" in cfg) {
      const transport = new StdioClientTransport({
        command: cfg.command,
        args: cfg.args,
        env: { ...getDefaultEnvironment(), ...interpolateAll(cfg.env, `tools.mcp.${this.id}.env`) },
        cwd: cfg.cwd ?? this.baseDir,
        stderr: "pipe",
      });
      // The server's stderr is its log: keep the end of it for error messages, never mix it into ours.
      transport.stderr?.on("data", (d: Buffer) => {
        this.stderrTail = (this.stderrTail + d.toString("utf8")).slice(-2000);
      });
      await client.connect(transport, { timeout: cfg.timeoutMs });
    } else {
      const headers = interpolateAll(cfg.headers, `tools.mcp.${this.id}.headers`);
      await client.connect(new StreamableHTTPClientTransport(new URL(cfg.url), { requestInit: { headers } }), {
        timeout: cfg.timeoutMs,
      });
    }
    return client;
  }

  async tools(): Promise<ProvidedTool[]> {
    if (this.listed) return this.listed;
    const client = await this.connect();
    const out: ProvidedTool[] = [];
    let cursor: string | undefined;
    do {
      const page = await client.listTools(cursor ? { cursor } : undefined, { timeout: this.cfg.timeoutMs });
      for (const t of page.tools) {
        out.push({
          name: t.name,
          description: t.description ?? t.title ?? t.name,
          parameters: t.inputSchema as Record<string, unknown>,
        });
      }
      cursor = page.nextCursor;
    } while (cursor);
    this.listed = out;
    return out;
  }

  async call(tool: string, call: ProviderCall): Promise<ToolResult> {
    const client = await this.connect();
    let r: Awaited<ReturnType<Client["callTool"]>>;
    try {
      r = await client.callTool({ name: tool, arguments: call.args }, undefined, {
        timeout: this.cfg.timeoutMs,
        signal: call.signal,
      });
    } catch (e) {
      throw new ToolError(
        "tool.mcp_call_failed",
        `MCP server ${this.where()}: tool "${tool}" failed: ${(e as Error)?.message ?? e}`,
        {
          provider: this.id,
          tool,
        },
      );
    }
    const content = (Array.isArray(r.content) ? r.content : []) as Content[];
    if (r.isError) {
      const text =
        content
          .map((c) => c.text ?? "")
          .join("\n")
          .trim() || "(no message)";
      throw new ToolError("tool.failed", `MCP tool ${this.id}/${tool} reported an error: ${text}`, {
        provider: this.id,
        tool,
      });
    }
    const refuse = (what: string, p: HostileProblem) =>
      new ToolError("tool.bad_result", `MCP tool ${this.id}/${tool} returned ${what} that is refused: ${p.message}`, {
        provider: this.id,
        tool,
        reason: p.reason,
      });
    return toToolResult(content, r.structuredContent, call.files, refuse);
  }

  async close(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) await (await c.catch(() => undefined))?.close();
  }
}

type Refuse = (what: string, problem: HostileProblem) => ToolError;

/**
 * MCP content → Dify's tool result: text joined, JSON text and structured content as json, media as files.
 * JSON from the server is hostile input (src/util/hostile-json.ts): too deep, too large or with
 * prototype-changing keys, the call fails naming the tool; text that is not JSON after all stays text.
 */
async function toToolResult(
  content: Content[],
  structured: unknown,
  files: FileService,
  refuse: Refuse,
): Promise<ToolResult> {
  const texts: string[] = [];
  const json: unknown[] = [];
  const out: FileValue[] = [];
  for (const [i, c] of content.entries()) {
    if (c.type === "text" && typeof c.text === "string") {
      texts.push(c.text);
      const t = c.text.trim();
      if (t.startsWith("{") || t.startsWith("[")) {
        const read = readHostileJson(t);
        if (read.ok) json.push(read.value);
        // Invalid: plain text that happens to start with a bracket.
        else if (read.reason !== "invalid") throw refuse(`JSON text in content[${i}]`, read);
      }
    } else if ((c.type === "image" || c.type === "audio") && typeof c.data === "string") {
      const mimeType = c.mimeType ?? "application/octet-stream";
      out.push(
        await files.put(new Uint8Array(Buffer.from(c.data, "base64")), {
          filename: `${c.type}-${i + 1}${extensionForMime(mimeType)}`,
          mimeType,
        }),
      );
    } else if (c.type === "resource" && c.resource) {
      const res = c.resource as { uri?: string; text?: string; blob?: string; mimeType?: string };
      if (typeof res.text === "string") texts.push(res.text);
      else if (typeof res.blob === "string") {
        const mimeType = res.mimeType ?? "application/octet-stream";
        const name = res.uri?.split("/").pop() || `resource-${i + 1}${extensionForMime(mimeType)}`;
        out.push(await files.put(new Uint8Array(Buffer.from(res.blob, "base64")), { filename: name, mimeType }));
      }
    }
  }
  if (structured && typeof structured === "object") {
    const problem = checkHostileValue(structured);
    if (problem) throw refuse("structured content", problem);
    // MCP asks servers to send structured content also as JSON text: that copy is the same object, kept once.
    const copy = json.findIndex((j) => isDeepStrictEqual(j, structured));
    if (copy >= 0) json.splice(copy, 1);
    json.unshift(structured);
  }
  return { text: texts.join("\n"), files: out, json };
}
