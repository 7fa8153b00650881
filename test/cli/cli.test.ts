import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { buildWorkflow } from "../support/build.js";
import { tempDir } from "../support/per-file.js";
import { cleanEnv, weftCli } from "../support/weft-bin.js";

const root = resolve(import.meta.dirname, "../..");
const example = join(root, "examples/word-stats.yml");
const dir = tempDir("cli");
const weft = weftCli({ cwd: dir, env: cleanEnv({ extra: ["OLLAMA_HOST"] }) });

describe("weft CLI", () => {
  it("validates: exit 0 for a valid file, 1 with JSON diagnostics for an invalid one", () => {
    expect(weft(["validate", example]).code).toBe(0);
    const bad = join(dir, "bad.json");
    const wf = JSON.parse(weft(["import", example]).out);
    wf.edges = wf.edges.filter((e: { target: string }) => e.target !== "1006");
    writeFileSync(bad, JSON.stringify(wf));
    const r = weft(["validate", bad, "--json"]);
    expect(r.code).toBe(1);
    const out = JSON.parse(r.out);
    expect(out.valid).toBe(false);
    expect(out.diagnostics.map((d: { code: string }) => d.code)).toContain("graph.unreachable");
  });

  it("validate warns about a tool nothing serves, and reads --config even for a workflow without tools", () => {
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        {
          id: "s",
          type: "tool",
          provider_type: "builtin",
          provider_id: "langgenius/serper/serper",
          tool_name: "serper",
          tool_parameters: { query: { type: "mixed", value: "x" } },
        },
        { id: "end", type: "end", outputs: [{ variable: "t", value_selector: ["s", "text"] }] },
      ],
      edges: [
        ["start", "s"],
        ["s", "end"],
      ],
    });
    const file = join(dir, "tool.json");
    writeFileSync(file, JSON.stringify(wf));
    const r = weft(["validate", file, "--json"]);
    expect(JSON.parse(r.out).diagnostics).toContainEqual(
      expect.objectContaining({ code: "tool.unserved", nodeId: "s" }),
    );
    const badConfig = join(dir, "bad.config.json");
    writeFileSync(badConfig, "{ not json");
    const c = weft(["validate", example, "--config", badConfig]);
    expect(c.code).not.toBe(0);
    expect(c.err).toMatch(/^error \S+: /);
  });

  it("reports unreadable input as a typed error, never a stack trace", () => {
    const notYaml = join(dir, "x.yml");
    writeFileSync(notYaml, "app: [unclosed\n");
    const r = weft(["validate", notYaml]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error \S+: /);
    expect(r.err).not.toMatch(/\n\s+at /);
    expect(weft(["validate", join(dir, "missing.yml")]).code).toBe(2);
  });

  it("imports, exports to Dify and Mermaid, and the export re-imports to the same workflow", () => {
    const json = join(dir, "wf.json");
    expect(weft(["import", example, "-o", json]).code).toBe(0);
    const yml = join(dir, "out.yml");
    expect(weft(["export", json, "--to", "dify", "-o", yml]).code).toBe(0);
    const again = join(dir, "again.json");
    expect(weft(["import", yml, "-o", again]).code).toBe(0);
    expect(JSON.parse(readFileSync(again, "utf8"))).toEqual(JSON.parse(readFileSync(json, "utf8")));
    expect(weft(["export", json, "--to", "mermaid"]).out).toMatch(/^flowchart LR/);
    expect(weft(["export", json, "--to", "nope"]).code).toBe(2);
  });

  it("shows a summary", () => {
    const r = weft(["show", example, "--json"]);
    const s = JSON.parse(r.out);
    expect(s.nodes).toBe(7);
    expect(s.inputs).toEqual([{ name: "text", type: "string" }]);
    expect(s.outputs.map((o: { name: string }) => o.name)).toEqual(["verdict", "longest"]);
  });

  it("runs, lists runs and prints the trace", () => {
    const db = join(dir, "runs.db");
    const r = weft(["run", example, "--input", "text=one two three", "--json", "--db", db]);
    expect(r.code, r.err).toBe(0);
    const res = JSON.parse(r.out);
    expect(res.status).toBe("succeeded");
    expect(res.outputs).toEqual({ verdict: "short (3 words)", longest: "three" });
    const { runs } = JSON.parse(weft(["runs", "--json", "--db", db]).out);
    expect(runs[0]).toMatchObject({ id: res.runId, source: "cli" });
    const trace = JSON.parse(weft(["trace", res.runId, "--json", "--db", db]).out);
    expect(trace.trace.map((t: { nodeId: string }) => t.nodeId)).toEqual([
      "1000",
      "1001",
      "1002",
      "1004",
      "1005",
      "1006",
    ]);
    expect(weft(["trace", "nope", "--db", db]).code).toBe(1);
    // a missing required input is refused before any run exists (issue 16): usage error, nothing stored
    const missing = weft(["run", example, "--json", "--db", db]);
    expect(missing.code).toBe(2);
    expect(missing.err).toMatch(/^error usage\.missing_input: required input "text" was not given/);
    expect(JSON.parse(weft(["runs", "--json", "--db", db]).out).runs).toHaveLength(1);
  });

  it("explains how to configure a model and exits 2 when none is configured", () => {
    const r = weft(["generate", "make a workflow"]);
    expect(r.code).toBe(2);
    expect(r.err).toContain("WEFT_LLM_BASE_URL");
  });
});
