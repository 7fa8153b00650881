/**
 * `weft run` (the built CLI, as bin/weft runs it) loads the node types its workflow uses and no others, one store
 * backend and one sandbox language: what it loads is its start-up cost (issue 33: CPU against a bare node).
 */
import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { modulesLoadedBy } from "../support/loaded-modules.js";
import { tempDir } from "../support/per-file.js";

const ROOT = resolve(import.meta.dirname, "../..");
const dir = tempDir("run-loads");

/** The URL of every module `weft ...args` loads (main thread), from a command that must succeed. */
function loadedBy(args: string[], name: string): string[] {
  const { urls, status, stderr } = modulesLoadedBy(dir, name, args, { cwd: dir });
  expect(status, stderr).toBe(0);
  return urls;
}

/** The node-type files of dist/nodes among `urls` (`code`, `llm`...). */
const nodeFiles = (urls: string[]) =>
  urls
    .map((u) => /\/dist\/nodes\/([a-z-]+)\.js$/.exec(u)?.[1])
    .filter((f): f is string => f !== undefined)
    .sort();

describe("weft run loads what its workflow needs", () => {
  const example = join(ROOT, "examples/word-stats.yml");
  const urls = loadedBy(["run", example, "--input", "text=the quick brown fox", "--db", ":memory:"], "word-stats");

  it("loads the node types of the workflow, and none of the others", () => {
    const types = nodeFiles(urls);
    // word-stats: start, code, if-else, template-transform, variable-aggregator, end (and their helper modules).
    for (const t of ["start", "code", "if-else", "template-transform", "variable-aggregator", "end"])
      expect(types).toContain(t);
    for (const t of ["llm", "agent", "http-request", "knowledge-retrieval", "tool", "tool-call", "iteration", "loop"])
      expect(types).not.toContain(t);
    expect(types).not.toContain("index");
  });

  it("loads no model SDK, one store backend and one sandbox language", () => {
    const hits = (re: RegExp) => urls.filter((u) => re.test(u));
    expect(hits(/\/node_modules\/(ai|@ai-sdk\/[^/]+)\//)).toEqual([]);
    expect(hits(/\/dist\/store\/(sqlite|postgres)\/open\.js$/)).toEqual([]);
    expect(hits(/\/dist\/store\/memory\/open\.js$/)).toHaveLength(1);
    expect(hits(/\/dist\/sandbox\/javascript\.js$/)).toHaveLength(1);
    expect(hits(/\/dist\/sandbox\/python\.js$/)).toEqual([]);
    // :memory:'s knowledge bases (SQLite FTS5 and sqlite-vec in memory) open on first use, not for every run.
    expect(hits(/\/node_modules\/(better-sqlite3|sqlite-vec[^/]*)\//)).toEqual([]);
  });

  it("loads no built-in tool and no knowledge retrieval for a workflow without tool or knowledge nodes", () => {
    const hits = (re: RegExp) => urls.filter((u) => re.test(u));
    // The built-ins load with the first tool call or check, the retrieval code with the first retrieval (the
    // catalogue of external providers, a table the tool service's error texts name, is all of builtin/ loaded).
    expect(hits(/\/dist\/tools\/(builtin\/(?!catalog\.js$)|render\/)/)).toEqual([]);
    expect(hits(/\/dist\/knowledge\/(service|chunk|rerank|keyword-score)\.js$/)).toEqual([]);
    // What they replace is loaded (so the check can see these files): the tool service and the file store.
    expect(hits(/\/dist\/tools\/configured\/service\.js$/)).toHaveLength(1);
    expect(hits(/\/dist\/tools\/files\.js$/)).toHaveLength(1);
    // The HTTP guard resolves names with node's DNS module, loaded with the first request.
    expect(urls).not.toContain("node:dns/promises");
    expect(urls).toContain("node:net");
  });

  it("loads zod as the one bundled file, not the package's ~95 modules", () => {
    expect(urls.filter((u) => u.endsWith("/dist/vendor/zod.js"))).toHaveLength(1);
    expect(urls.filter((u) => /\/node_modules\/zod\//.test(u))).toEqual([]);
  });

  it("a workflow with a model node loads that node's type (the check sees node types load)", () => {
    const wf = join(dir, "llm.json");
    const imported = JSON.parse(
      execFileSync(process.execPath, [join(ROOT, "dist/cli/main.js"), "import", example], { encoding: "utf8" }),
    );
    const llm = {
      id: "llm1",
      type: "llm",
      title: "LLM",
      config: {
        model: { provider: "openai", name: "gpt-4o-mini", mode: "chat", completion_params: {} },
        prompt_template: [{ role: "user", text: "hi" }],
        context: { enabled: false, variable_selector: [] },
        vision: { enabled: false },
      },
    };
    writeFileSync(wf, JSON.stringify({ ...imported, nodes: [...imported.nodes, llm] }));
    // An LLM node that no edge reaches: `validate` reads every node's type, reports the unreached one, exits 1.
    const { urls, status } = modulesLoadedBy(dir, "llm", ["validate", wf], { cwd: dir });
    expect([0, 1]).toContain(status);
    const types = nodeFiles(urls);
    expect(types).toContain("llm");
    expect(types).not.toContain("agent");
  });
});
