/**
 * Issue 14's commands as a new user runs them (bin/weft as a child process, a weft.config.json in a temp
 * dir): `weft tools list/check`, `weft kb create/add/list/search`, `weft run --file` (sys.files) and
 * `weft run --allow-warnings`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { buildWorkflow } from "../support/build.js";
import { corpusPath } from "../support/corpus.js";
import { tempDir } from "../support/per-file.js";
import { replayToolsStdio } from "../support/replay-tools.js";
import { cleanEnv, weftCli } from "../support/weft-bin.js";

const TIMEOUT = 120_000;
const dir = tempDir("cli-tools-kb");
const config = join(dir, "weft.config.json");
const CASES = corpusPath("chat2workflow", "case_files");
const weft = weftCli({ cwd: dir, env: cleanEnv({ keepApiKeys: true }), timeout: 90_000, tail: ["--config", config] });

const toolWf = join(dir, "tools.json");
const filesWf = join(dir, "files.json");
const joinWf = join(dir, "join.json");

beforeAll(() => {
  writeFileSync(
    config,
    JSON.stringify({
      db: join(dir, "weft.db"),
      files: { dir: join(dir, "files") },
      tools: { mcp: { replay: replayToolsStdio() }, map: { "tavily/tavily_search": "replay/web_search" } },
    }),
  );
  const tool = (id: string, provider_id: string, tool_name: string) => ({
    id,
    type: "tool",
    provider_type: "builtin",
    provider_id,
    tool_name,
    tool_parameters: { query: { type: "mixed", value: "x" } },
  });
  writeFileSync(
    toolWf,
    JSON.stringify(
      buildWorkflow({
        nodes: [
          { id: "start", type: "start", variables: [] },
          tool("search", "tavily", "tavily_search"),
          tool("serper", "langgenius/serper/serper", "serper"),
          { id: "end", type: "end", outputs: [{ variable: "a", value_selector: ["search", "text"] }] },
        ],
        edges: [
          ["start", "search"],
          ["search", "serper"],
          ["serper", "end"],
        ],
      }),
    ),
  );
  // Reads sys.files: the names of the files given with --file.
  writeFileSync(
    filesWf,
    JSON.stringify(
      buildWorkflow({
        nodes: [
          { id: "start", type: "start", variables: [] },
          {
            id: "t",
            type: "template-transform",
            template: "{% for f in fs %}{{ f.filename }}:{{ f.size }};{% endfor %}",
            variables: [{ variable: "fs", value_selector: ["sys", "files"] }],
          },
          { id: "end", type: "end", outputs: [{ variable: "names", value_selector: ["t", "output"] }] },
        ],
        edges: [
          ["start", "t"],
          ["t", "end"],
        ],
      }),
    ),
  );
  // The end reads a value produced on one branch only: Dify runs it (rendering the missing value empty).
  writeFileSync(
    joinWf,
    JSON.stringify(
      buildWorkflow({
        nodes: [
          { id: "start", type: "start", variables: [{ variable: "n", label: "n", type: "number", required: true }] },
          {
            id: "if",
            type: "if-else",
            cases: [
              {
                case_id: "big",
                logical_operator: "and",
                conditions: [{ variable_selector: ["start", "n"], comparison_operator: ">", value: "5" }],
              },
            ],
          },
          { id: "a", type: "template-transform", template: "big", variables: [] },
          { id: "b", type: "template-transform", template: "small", variables: [] },
          { id: "end", type: "end", outputs: [{ variable: "big", value_selector: ["a", "output"] }] },
        ],
        edges: [
          ["start", "if"],
          ["if", "big", "a"],
          ["if", "false", "b"],
          ["a", "end"],
          ["b", "end"],
        ],
      }),
    ),
  );
});

describe("weft tools", () => {
  it("list shows the configured MCP server's tools with parameters, the map and the built-ins", {
    timeout: TIMEOUT,
  }, () => {
    const r = weft(["tools", "list"]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/^mcp replay$/m);
    expect(r.out).toMatch(/replay\/web_search\(.*query.*\)/);
    expect(r.out).toContain("map tavily/tavily_search → replay/web_search");
    expect(r.out).toMatch(/^built-in: .*echarts/m);
  });

  it("check names the served and the unserved tool nodes, with the snippet, and exits 1", { timeout: TIMEOUT }, () => {
    const r = weft(["tools", "check", toolWf, "--json"]);
    expect(r.code).toBe(1);
    const checks = JSON.parse(r.out) as Array<{ nodeId: string; status: string; message?: string }>;
    expect(checks.find((c) => c.nodeId === "search")?.status).toBe("configured");
    const serper = checks.find((c) => c.nodeId === "serper")!;
    expect(serper.status).toBe("unserved");
    expect(serper.message).toContain('"tools"');
    expect(serper.message).not.toContain("registerExternalTool");
    // The validation-time warning says the same before running.
    const v = weft(["validate", toolWf]);
    expect(v.out + v.err).toMatch(/warning tool\.unserved/);
  });
});

describe("weft kb", () => {
  it("create, add real documents, list and search", { timeout: TIMEOUT }, () => {
    const c = weft(["kb", "create", "Fables", "--id", "fables", "--max-length", "400", "--json"]);
    expect(c.code).toBe(0);
    expect(JSON.parse(c.out)).toMatchObject({ id: "fables", chunking: { maxLength: 400 } });
    const add = weft([
      "kb",
      "add",
      "fables",
      join(CASES, "The-Lion-and-the-Mouse.pdf"),
      join(CASES, "the-three-little-pigs.pdf"),
      "--metadata",
      '{"kind":"story"}',
    ]);
    expect(add.code).toBe(0);
    expect(add.out).toMatch(/The-Lion-and-the-Mouse\.pdf\t\d+ chunks/);
    const list = weft(["kb", "list"]);
    expect(list.out).toMatch(/fables\s.*Fables/);
    const s = weft(["kb", "search", "fables", "who gnawed the ropes of the net", "--json"]);
    expect(s.code).toBe(0);
    const { result } = JSON.parse(s.out) as {
      result: Array<{ title: string; content: string; metadata: Record<string, unknown> }>;
    };
    expect(result[0]!.title).toBe("The-Lion-and-the-Mouse.pdf");
    expect(result[0]!.content).toContain("gnawed");
    expect(result[0]!.metadata).toMatchObject({ dataset_id: "fables", doc_metadata: { kind: "story" } });
    const dup = weft(["kb", "create", "Again", "--id", "fables"]);
    expect(dup.code).not.toBe(0);
    expect(dup.err).toMatch(/kb\.exists/);
    expect(dup.err).not.toMatch(/\n\s+at /);
  });

  it("parent-child chunking: --structure parent_child searches the children and returns the parent", {
    timeout: TIMEOUT,
  }, () => {
    const c = weft([
      "kb",
      "create",
      "Handbook",
      "--id",
      "handbook",
      "--structure",
      "parent_child",
      "--subchunk-max-length",
      "200",
      "--json",
    ]);
    expect(c.code).toBe(0);
    expect(JSON.parse(c.out)).toMatchObject({
      chunking: { structure: "parent_child", parentMode: "paragraph", subchunkMaxLength: 200, subchunkSeparator: "\n" },
    });
    const doc = join(dir, "handbook.md");
    const leave =
      "Leave.\nHolidays are booked in the leave calendar.\nSick days are reported to the team lead before nine.";
    writeFileSync(doc, `Travel.\nTrain tickets are refunded in second class.\n\n${leave}`);
    const add = weft(["kb", "add", "handbook", doc]);
    expect(add.code).toBe(0);
    expect(add.out).toMatch(/handbook\.md\t5 chunks/);
    const s = weft(["kb", "search", "handbook", "sick days reported", "--json"]);
    const { result } = JSON.parse(s.out) as { result: Array<{ content: string; metadata: Record<string, any> }> };
    expect(result[0]!.content).toBe(leave);
    expect(result[0]!.metadata.child_chunks[0].content).toBe("Sick days are reported to the team lead before nine.");
    const bad = weft(["kb", "create", "Bad", "--structure", "tree"]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/usage\.choice.*--structure must be one of general, parent_child/);
  });
});

describe("weft run", () => {
  it("--file supplies sys.files, one file each", { timeout: TIMEOUT }, () => {
    const a = join(dir, "a.txt");
    writeFileSync(a, "hello");
    const r = weft(["run", filesWf, "--file", a, "--file", join(CASES, "teaching_plan_physics.md"), "--json"]);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out).outputs.names).toMatch(/^a\.txt:5;teaching_plan_physics\.md:\d+;$/);
    const missing = weft(["run", filesWf, "--file", join(dir, "nope.txt")]);
    expect(missing.code).not.toBe(0);
    expect(missing.err).toContain("nope.txt does not exist");
  });

  it("--allow-warnings runs what Dify would run; without it the run is refused naming the flag", {
    timeout: TIMEOUT,
  }, () => {
    const refused = weft(["run", joinWf, "--input", "n=1"]);
    expect(refused.code).toBe(1);
    expect(refused.err).toMatch(/ref\.not_available/);
    expect(refused.err).toContain("--allow-warnings");
    const ran = weft(["run", joinWf, "--input", "n=9", "--allow-warnings", "--json"]);
    expect(ran.code).toBe(0);
    expect(JSON.parse(ran.out).outputs.big).toBe("big");
    expect(ran.err).toMatch(/warning ref\.not_available/);
  });
});
