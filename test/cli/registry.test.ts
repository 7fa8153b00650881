/**
 * The command registry (src/cli/registry.ts): its rows agree with what the command modules register, and
 * `weft --help` (the built CLI, as bin/weft runs it) loads no command module and no heavy dependency.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { COMMANDS, commandNamed, loadAllCommands, newProgram, placeholderCommands } from "../../src/cli/registry.js";
import { modulesLoadedBy } from "../support/loaded-modules.js";

const ROOT = resolve(import.meta.dirname, "../..");
const dir = mkdtempSync(join(tmpdir(), "weft-registry-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Every module file `node dist/cli/main.js ...args` loads, relative to the checkout. */
function modulesOf(args: string[]): string[] {
  const { urls, status, stderr } = modulesLoadedBy(dir, `loaded-${args[0] ?? "none"}`, args);
  expect(status, stderr).toBe(0);
  return [...new Set(urls.filter((u) => u.startsWith("file:")).map((u) => relative(ROOT, fileURLToPath(u))))].sort();
}

describe("command registry", () => {
  it("lists every registered top-level command with the description it registers, and nothing else", async () => {
    const program = newProgram();
    await loadAllCommands(program);
    const registered = program.commands.map((c) => ({ name: c.name(), description: c.description() }));
    expect(COMMANDS.map((c) => ({ name: c.name, description: c.description }))).toEqual(registered);
  }, 120_000);

  it("finds the command named by the arguments, also after `help`", () => {
    expect(commandNamed(["run", "wf.yml"])?.name).toBe("run");
    expect(commandNamed(["help", "serve"])?.name).toBe("serve");
    expect(commandNamed(["--help"])).toBeUndefined();
    expect(commandNamed([])).toBeUndefined();
    expect(commandNamed(["rn"])).toBeUndefined();
  });

  it("placeholders give help every command's name and description", () => {
    const program = newProgram();
    placeholderCommands(program);
    const help = program.helpInformation();
    for (const c of COMMANDS) expect(help).toContain(c.name);
    expect(help).toContain("benchmark evaluations");
  });

  it("weft --help loads only the CLI's entry, the registry, the error reporters and commander", () => {
    const loaded = modulesOf(["--help"]);
    expect(loaded).toContain("dist/cli/registry.js");
    const others = loaded.filter(
      (p) =>
        !/^dist\/(cli\/(main|registry|output|usage-errors)|ir\/errors|store\/errors|errors\/statuses)\.js$/.test(p) &&
        !/^node_modules\/(commander|@commander-js\/extra-typings)\//.test(p),
    );
    expect(others).toEqual([]);
  });

  it("a command loads its own module, not the others' (validate loads no server or queue)", () => {
    const loaded = modulesOf(["validate", join(ROOT, "examples/word-stats.yml")]);
    expect(loaded).toContain("dist/cli/commands/static.js");
    expect(loaded.filter((p) => /^dist\/cli\/commands\/(?!static\.js)/.test(p))).toEqual([]);
    expect(loaded.filter((p) => /node_modules\/(hono|@hono|bullmq|ioredis)\//.test(p))).toEqual([]);
  });
});
