/**
 * Bounded input at the HTTP door, and "accepted" means "stored" (issue 16, item 3). The probe's
 * request nested its inputs 100,000 levels deep: the server answered 202 with a run id and never
 * stored or logged anything. Now such input is refused with 400, an oversized body with 413, and a
 * run whose record cannot be stored is answered 500 (and logged) instead of 202.
 */
import type Database from "better-sqlite3";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow } from "../support/build.js";
import { startTestServer, type TestServer } from "./helpers.js";

let s: TestServer;
let appId = "";
beforeAll(async () => {
  s = await startTestServer({ maxBodyBytes: 2 * 1024 * 1024 });
  const wf = buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "doc", type: "json_object" }] },
      { id: "end", type: "end", outputs: [{ variable: "doc", value_selector: ["start", "doc"] }] },
    ],
    edges: [["start", "end"]],
  });
  const res = await s.api("/api/apps", { method: "POST", json: { name: "echo", workflow: wf } });
  appId = ((await res.json()) as { app: { id: string } }).app.id;
});
afterAll(async () => s.stop());

/** `levels` nested arrays or objects, built as text (JSON.stringify itself would overflow). */
function nested(levels: number, kind: "array" | "object"): string {
  return kind === "array"
    ? `${"[".repeat(levels)}1${"]".repeat(levels)}`
    : `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;
}

/** The server's SQLite connection (the run store is the SQLite one here). */
const sqlite = () => (s.deps.runs as unknown as { db: Database.Database }).db;

const post = (body: string) =>
  s.api(`/api/apps/${appId}/runs`, { method: "POST", body, headers: { "content-type": "application/json" } });

async function storedRuns(): Promise<number> {
  return (await s.deps.runs.listRuns({ limit: 1000 })).length;
}

describe("input depth and size are bounded at the door", () => {
  for (const [name, body] of [
    ["the probe's inputs nested 100,000 levels", `{"inputs":{"doc":{"x":${nested(100_000, "array")}}}}`],
    ["objects nested 100,000 levels", `{"inputs":{"doc":${nested(100_000, "object")}}}`],
    ["one level past the limit", `{"inputs":{"doc":{"x":${nested(63, "array")}}}}`],
  ] as const) {
    it(`${name}: 400 request.too_deep, nothing stored`, async () => {
      const before = await storedRuns();
      const res = await post(body);
      expect(res.status).toBe(400);
      const err = ((await res.json()) as { error: { code: string; message: string } }).error;
      expect(err.code).toBe("request.too_deep");
      expect(err.message).toMatch(/deeper than 64 levels \(at inputs\.doc/);
      expect(await storedRuns()).toBe(before);
    });
  }

  it("input nested within the limit is accepted, stored and run", async () => {
    const res = await post(`{"inputs":{"doc":{"x":${nested(40, "array")}}}}`);
    expect(res.status).toBe(202);
    const { runId } = (await res.json()) as { runId: string };
    expect(await s.deps.runs.getRun(runId)).toBeDefined();
  });

  it("a deep body on another route is refused the same way", async () => {
    const res = await s.api("/api/apps", {
      method: "POST",
      body: `{"name":"x","workflow":${nested(10_000, "object")}}`,
      headers: { "content-type": "application/json" },
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("request.too_deep");
  });

  it("inputs over the body limit: 413, nothing stored", async () => {
    const before = await storedRuns();
    const res = await post(JSON.stringify({ inputs: { doc: { text: "x".repeat(3 * 1024 * 1024) } } }));
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("request.too_large");
    expect(await storedRuns()).toBe(before);
  });
});

describe("accepted means stored", () => {
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  afterEach(() => {
    process.stderr.write = write;
    sqlite().pragma("max_page_count = 1073741823");
  });

  it("every 202 names a run that is already in the store", async () => {
    for (let i = 0; i < 5; i++) {
      const res = await post(JSON.stringify({ inputs: { doc: { i } } }));
      expect(res.status).toBe(202);
      const { runId } = (await res.json()) as { runId: string };
      // No waiting: the record exists by the time the client hears of the run.
      expect((await s.deps.runs.getRun(runId))?.inputs).toEqual({ doc: { i } });
      expect((await s.api(`/api/runs/${runId}`)).status).toBe(200);
    }
  });

  it("a run that cannot be stored is answered 500 with the reason and logged, never 202", async () => {
    process.stderr.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
      written.push(String(chunk));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof process.stderr.write;
    const before = await storedRuns();
    // SQLite's size cap gives the SQLITE_FULL a full disk does.
    const pages = sqlite().pragma("page_count", { simple: true }) as number;
    sqlite().pragma(`max_page_count = ${pages}`);
    const res = await post(JSON.stringify({ inputs: { doc: { text: "y".repeat(500_000) } } }));
    expect(res.status).toBe(500);
    const err = ((await res.json()) as { error: { code: string; message: string } }).error;
    expect(err.code, err.message).toBe("store.full");
    expect(err.message).toMatch(/full/);
    expect(err.message).not.toContain(s.dir); // the server's paths stay in its log
    expect(written.join("")).toMatch(/weft server: .*store\.full: .*weft\.db/);
    expect(await storedRuns()).toBe(before);
  });
});
