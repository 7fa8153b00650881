/**
 * Seeded fuzz of MCP tool results (issue 28 D): hostile replies from a real MCP server on 127.0.0.1 go
 * through the real client path (the SDK's streamable-HTTP client inside McpProvider, then the hostile-JSON
 * reader) and must each end in a typed error or a result of plain, bounded JSON.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { McpServerSchema } from "../../src/tools/configured/config.js";
import { McpProvider } from "../../src/tools/configured/mcp.js";
import { DirFileService } from "../../src/tools/files.js";
import { type HostileMcp, startHostileMcp } from "../support/hostile-mcp.js";
import { hostileMcpReply, judgeToolOutcome } from "../support/hostile-tool-results.js";

let mcp: HostileMcp;
let provider: McpProvider;
let files: DirFileService;

beforeAll(async () => {
  mcp = await startHostileMcp();
  const dir = mkdtempSync(join(tmpdir(), "weft-mcp-fuzz-"));
  // A reply that never answers the request (a stream that stays open) ends at this timeout, as a typed error.
  provider = new McpProvider("fuzz", McpServerSchema.parse({ url: mcp.url, timeoutMs: 10_000 }), dir);
  files = new DirFileService(join(dir, "files"));
});

afterAll(async () => {
  await provider?.close();
  await mcp?.close();
});

describe("hostile MCP tool results end in typed errors (issue 28 D)", () => {
  it("a seeded fuzz through the real MCP client finds nothing untyped", { timeout: 300_000 }, async () => {
    const seen = new Map<string, number>();
    let tried = 0;
    await fc.assert(
      fc.asyncProperty(hostileMcpReply, async (reply) => {
        tried++;
        mcp.reply(reply);
        const outcome = await provider.call("give", { args: {}, files }).then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        );
        const judged = judgeToolOutcome(outcome);
        if (judged.kind === "untyped") throw new Error(judged.reason);
        seen.set(judged.code, (seen.get(judged.code) ?? 0) + 1);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { seed: 20261204, numRuns: 300 },
    );
    console.log(`MCP tool-result fuzz: ${tried} replies tried, outcomes ${JSON.stringify(Object.fromEntries(seen))}`);
    expect(tried).toBe(300);
    // The run reached the reader's refusals, not only transport failures.
    expect(seen.get("tool.bad_result")).toBeGreaterThan(10);
    expect(seen.get("ok")).toBeGreaterThan(10);
  });
});
