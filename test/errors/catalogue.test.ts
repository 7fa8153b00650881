/**
 * The error catalogue (src/errors/) against the source: every code src/ raises is catalogued, every entry is
 * raised somewhere, all are spelled `area.reason`, `weft errors` prints them and docs/errors.md is current.
 */
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { ANALYSIS_CODES } from "../../src/analysis/index.js";
import { CODE_SPELLING, ERROR_CATALOGUE, lookupError } from "../../src/errors/catalogue.js";
import { renderErrorsDoc } from "../../src/errors/doc.js";
import { RENAMED_CODES } from "../../src/errors/renamed.js";
import { type CodeSite, scanErrorCodes } from "../support/error-codes.js";
import { WEFT_BIN } from "../support/weft-bin.js";

const root = resolve(import.meta.dirname, "../..");
const where = (s: CodeSite) => `${s.code} (${s.file}:${s.line})`;

describe("the error catalogue against src/", () => {
  let sites: CodeSite[] = [];
  // The scan type-checks src/ (the signatures tell which argument is a code): tens of seconds on a busy machine.
  beforeAll(() => {
    sites = scanErrorCodes();
  }, 600_000);

  it("the scanner finds codes of every kind of site", () => {
    const codes = new Set(sites.map((s) => s.code));
    for (const c of ["graph.cycle", "dsl.not_yaml", "dsl.edge_dropped", "llm.rate_limited", "request.invalid_json"])
      expect(codes).toContain(c);
    expect(sites.length).toBeGreaterThan(800);
  });

  it("every code src/ raises or reports is in the catalogue", () => {
    expect(sites.filter((s) => !ERROR_CATALOGUE.has(s.code)).map(where)).toEqual([]);
  });

  it("every catalogue entry is raised somewhere (no dead entries)", () => {
    const raised = new Set(sites.map((s) => s.code));
    expect([...ERROR_CATALOGUE.keys()].filter((c) => !raised.has(c))).toEqual([]);
  });

  it("an ApiError's status where it is thrown is one the catalogue lists for its code", () => {
    const off = sites.filter((s) => s.status !== undefined && !lookupError(s.code)?.http.includes(s.status));
    expect(off.map((s) => `${where(s)}: ${s.status}`)).toEqual([]);
  });

  it("a CliError's exit status is one the catalogue lists for its code", () => {
    const cli = sites.filter((s) => s.classes?.includes("CliError"));
    const off = cli.filter((s) => !lookupError(s.code)?.exit.includes(s.exitCode ?? 2));
    expect(off.map((s) => `${where(s)}: ${s.exitCode ?? 2}`)).toEqual([]);
  });
});

describe("the error catalogue", () => {
  it("spells every code area.reason, except Dify's own service-API codes", () => {
    const entries = [...ERROR_CATALOGUE.values()];
    expect(entries.filter((e) => e.kind !== "dify" && !CODE_SPELLING.test(e.code)).map((e) => e.code)).toEqual([]);
    expect(entries.filter((e) => e.kind === "dify").every((e) => /^[a-z_]+$/.test(e.code))).toBe(true);
  });

  it("gives every entry a message and a fix hint", () => {
    const bare = [...ERROR_CATALOGUE.values()].filter((e) => !e.message || !e.hint);
    expect(bare.map((e) => e.code)).toEqual([]);
  });

  it("holds the analyser's codes with their severities (one place: src/analysis reads them from here)", () => {
    for (const [code, a] of Object.entries(ANALYSIS_CODES)) {
      expect(ERROR_CATALOGUE.get(code)).toMatchObject({ severity: a.severity, message: a.summary, kind: "report" });
    }
  });

  it("renames only to catalogued codes", () => {
    expect(Object.values(RENAMED_CODES).filter((c) => !ERROR_CATALOGUE.has(c))).toEqual([]);
  });

  it("matches a computed code against its pattern entry", () => {
    expect(lookupError("runs.invalid_limit")?.code).toBe("runs.invalid_limit");
    expect(lookupError("runs.invalid_status")?.code).toBe("runs.invalid_*");
    expect(lookupError("usage.file")?.code).toBe("usage.*");
    expect(lookupError("nope.never")).toBeUndefined();
  });

  it("docs/errors.md is generated from it and current (`weft errors --markdown > docs/errors.md`)", () => {
    expect(readFileSync(join(root, "docs/errors.md"), "utf8")).toBe(renderErrorsDoc());
  });
});

describe("weft errors", () => {
  const dir = mkdtempSync(join(tmpdir(), "weft-errors-"));
  const weft = (args: string[]) => {
    const r = spawnSync(join(root, "bin/weft"), ["errors", ...args], { cwd: dir, encoding: "utf8", timeout: 120_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  it("lists every code", () => {
    const r = weft([]);
    expect(r.code).toBe(0);
    const listed = r.out
      .trim()
      .split("\n")
      .map((l) => l.split(/\s+/)[0]);
    expect(listed).toEqual([...ERROR_CATALOGUE.keys()]);
  });

  it("stops quietly (exit 0, no stack trace) when its reader closes the pipe early, as `weft errors | head` does", async () => {
    const child = spawn(WEFT_BIN, ["errors"], { stdio: ["ignore", "pipe", "pipe"] });
    let err = "";
    child.stderr.on("data", (d) => (err += d));
    // The first chunk read, the pipe closes: every later write of the listing fails with EPIPE.
    child.stdout.once("data", () => child.stdout.destroy());
    const code = await new Promise((r) => child.on("exit", r));
    expect(err).toBe("");
    expect(code).toBe(0);
  });

  it("prints one code: area, statuses, message and fix", () => {
    const r = weft(["dsl.not_yaml"]);
    expect(r.code).toBe(0);
    expect(r.out).toContain("dsl.not_yaml");
    expect(r.out).toMatch(/area: +dsl/);
    expect(r.out).toMatch(/HTTP: +422/);
    expect(r.out).toMatch(/exit: +1/);
    expect(r.out).toMatch(/message: +not valid YAML/);
    expect(r.out).toMatch(/fix: +\S/);
    expect(JSON.parse(weft(["graph.cycle", "--json"]).out)).toMatchObject({ code: "graph.cycle", severity: "error" });
  });

  it("refuses an unknown code with a clear error and exit 1, naming the new code of a renamed one", () => {
    const r = weft(["nope.never"]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("error errors.unknown_code: no error code nope.never");
    expect(weft(["dsl_not_yaml"]).err).toContain("dsl_not_yaml was renamed to dsl.not_yaml");
  });

  it("prints the catalogue as docs/errors.md", () => {
    expect(weft(["--markdown"]).out).toBe(renderErrorsDoc());
  });
});
