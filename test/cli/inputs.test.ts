/**
 * Bad command-line input, tried as a new user would (issue 16, item 7). Before: a mistyped --input
 * name was silently ignored (the run used the default), a missing required input created a stored
 * failed run, and a port in use printed Node's raw error.
 */
import { existsSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/per-file.js";
import { cleanEnv, weftCli } from "../support/weft-bin.js";

const root = resolve(import.meta.dirname, "../..");
const example = join(root, "examples/word-stats.yml");
const dir = tempDir("cli-inputs");
const weft = weftCli({ cwd: dir, env: cleanEnv({ keepApiKeys: true }), timeout: 90_000 });

/** A workflow with a required text input and an optional number with a default. */
const twoInputs = join(dir, "two.json");
beforeAll(() => {
  const wf = JSON.parse(weft(["import", example]).out);
  const start = wf.nodes.find((n: { type: string }) => n.type === "start");
  start.config.variables.push({ variable: "limit", label: "Limit", type: "number", required: false, default: 5 });
  writeFileSync(twoInputs, JSON.stringify(wf));
});

function expectOneLine(err: string, pattern: RegExp) {
  const lines = err.trim().split("\n");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatch(pattern);
  expect(err).not.toMatch(/\n\s+at /);
}

describe("weft run refuses input the workflow cannot take, before any run exists", { timeout: 120_000 }, () => {
  it("an --input name the workflow does not declare, naming the declared ones", () => {
    const db = join(dir, "typo.db");
    const r = weft(["run", twoInputs, "--db", db, "--input", "text=hello", "--input", "limt=3"]);
    expect(r.code).toBe(2);
    expectOneLine(
      r.err,
      /^error usage\.unknown_input: "limt" is not an input of this workflow \(did you mean "limit"\?\)/,
    );
    expect(r.err).toContain("the workflow declares: text (required), limit");
    expect(existsSync(db)).toBe(false);
  });

  it("an --input-file name the workflow does not declare", () => {
    const r = weft(["run", example, "--db", join(dir, "f.db"), "--input-file", `doc=${twoInputs}`]);
    expect(r.code).toBe(2);
    expectOneLine(r.err, /^error usage\.unknown_input: "doc" is not an input .*declares: text \(required\)/);
  });

  it("a missing required input: refused, and no run is stored", () => {
    const db = join(dir, "missing.db");
    const r = weft(["run", example, "--db", db]);
    expect(r.code).toBe(2);
    expectOneLine(
      r.err,
      /^error usage\.missing_input: required input "text" was not given: pass it with --input text=VALUE$/,
    );
    expect(existsSync(db)).toBe(false);
    // Had a run been stored, `weft runs` would list it.
    expect(weft(["runs", "--db", db]).out).not.toMatch(/failed/);
  });

  it("a value of the wrong type: refused before running", () => {
    const db = join(dir, "type.db");
    const r = weft(["run", twoInputs, "--db", db, "--input", "text=hi", "--input", "limit=many"]);
    expect(r.code).toBe(2);
    expectOneLine(r.err, /^error usage\.invalid_input: input "limit": expected a number, got "many"$/);
    expect(existsSync(db)).toBe(false);
  });

  it("declared inputs still run", () => {
    const r = weft([
      "run",
      twoInputs,
      "--db",
      join(dir, "ok.db"),
      "--input",
      "text=the quick fox",
      "--input",
      "limit=2",
    ]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/succeeded/);
  });
});

describe("weft serve on a port in use", () => {
  let holder: Server;
  let port = 0;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((r) => holder.listen(0, "127.0.0.1", () => r()));
    port = (holder.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((r) => holder.close(() => r())));

  it("prints one line naming the port and exits 2", { timeout: 120_000 }, () => {
    const r = weft(["serve", "--port", String(port), "--db", join(dir, "serve.db")]);
    expect(r.code).toBe(2);
    expectOneLine(
      r.err.replace(/^no API key exists yet.*\n/m, ""),
      new RegExp(
        `^error server\\.port_in_use: 127\\.0\\.0\\.1:${port} is already in use; choose another port with --port`,
      ),
    );
  });
});
