import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "@commander-js/extra-typings";
import { failureLine, reportMarkdown, targetLabel } from "../../apptests/report.js";
import type { TestReport } from "../../apptests/runner.js";
import { withAppTests } from "../app-tests.js";
import { DB_HELP } from "../config.js";
import { CliError, EXIT, printJson } from "../output.js";

function int(raw: string | undefined, flag: string, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new CliError(`usage.${flag}`, `--${flag} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

function printReport(r: TestReport): void {
  process.stdout.write(`tests of ${r.appId} on ${targetLabel(r.target)}: ${r.passed} passed, ${r.failed} failed`);
  process.stdout.write(r.k > 1 ? `; pass^${r.k} = ${r.passHatK.toFixed(3)}\n` : "\n");
  for (const c of r.cases)
    process.stdout.write(`  ${c.pass ? "pass" : "FAIL"}  ${c.pass ? `case '${c.name}'` : failureLine(c)}\n`);
  if (r.modelCalls) process.stdout.write(`model calls: ${r.modelCalls.live} live, ${r.modelCalls.cached} replayed\n`);
}

function registerCaseCommands(tests: Command): void {
  tests
    .command("add")
    .description(
      "add a test case: from a past run (its inputs; its outputs as exact expectations to edit) or a JSON file",
    )
    .argument("<app-id>")
    .option("--from-run <run-id>", "the run whose inputs and outputs make the case")
    .option("--file <case.json>", "a case as JSON: {name, inputs, sys?, expect: [...], judge?: {rubric}}")
    .option("--name <name>", "the case's name")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print the case as JSON")
    .action(async (appId, opts) => {
      if (!opts.fromRun === !opts.file)
        throw new CliError("usage.tests_add", "give exactly one of --from-run RUN_ID or --file CASE.json");
      const c = await withAppTests(opts, (t) =>
        opts.fromRun
          ? t.addFromRun(appId, opts.fromRun, opts.name)
          : t.add(appId, {
              ...JSON.parse(readFileSync(opts.file!, "utf8")),
              ...(opts.name ? { name: opts.name } : {}),
            }),
      );
      if (opts.json) return printJson(c);
      process.stdout.write(`added test case "${c.name}" to ${appId} (${c.expect.length} check(s))\n${c.id}\n`);
    });
  tests
    .command("list")
    .description("list an app's test cases")
    .argument("<app-id>")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (appId, opts) => {
      const cases = await withAppTests(opts, (t) => t.list(appId));
      if (opts.json) return printJson(cases);
      for (const c of cases)
        process.stdout.write(
          `${c.id}  ${c.name}  (${c.expect.map((x) => `${x.output}:${x.check}`).join(", ") || "no checks"}${c.judge ? ", judge" : ""})\n`,
        );
      if (cases.length === 0)
        process.stdout.write(`no test cases (add one: weft tests add ${appId} --from-run RUN_ID)\n`);
    });
  tests
    .command("remove")
    .description("delete a test case")
    .argument("<app-id>")
    .argument("<case-id>")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .action(async (appId, id, opts) => {
      await withAppTests(opts, (t) => t.remove(appId, id));
      process.stdout.write(`removed test case ${id}\n`);
    });
}

function registerRunCommand(tests: Command): void {
  tests
    .command("run")
    .description("run an app's test cases (default: its published version); exit 1 when any fails")
    .argument("<app-id>")
    .option("--version <n>", "test this version")
    .option("--draft", "test the draft")
    .option("--k <k>", "runs per case; pass^k over them", "1")
    .option("--concurrency <n>", "test runs at once", "4")
    .option("--replay", "answer model calls from recorded answers where the request is unchanged (records the others)")
    .option("--judge-model <name>", "the model judging cases with a rubric (or WEFT_JUDGE_MODEL)")
    .option("--report <dir>", "write report.md and report.json there")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print the report as JSON")
    .action(async (appId, opts) => {
      if (opts.version !== undefined && opts.draft)
        throw new CliError("usage.tests_run", "give --version N or --draft, not both");
      const r = await withAppTests(opts, (t) =>
        t.run(appId, {
          version: int(opts.version, "version", 1),
          draft: !!opts.draft,
          k: int(opts.k, "k", 1),
          concurrency: int(opts.concurrency, "concurrency", 1),
          replay: !!opts.replay,
        }),
      );
      if (opts.report) {
        mkdirSync(opts.report, { recursive: true });
        writeFileSync(join(opts.report, "report.md"), reportMarkdown(r));
        writeFileSync(join(opts.report, "report.json"), `${JSON.stringify(r, null, 2)}\n`);
      }
      if (opts.json) printJson(r);
      else printReport(r);
      if (r.failed > 0) process.exitCode = EXIT.invalid;
    });
}

function registerFileCommands(tests: Command): void {
  tests
    .command("export")
    .description("write an app's cases and settings as a side file (next to its Dify YAML: app.tests.yml)")
    .argument("<app-id>")
    .option("-o, --out <file>", "the side file (default: stdout)")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .action(async (appId, opts) => {
      const text = await withAppTests(opts, (t, _s, services) => t.exportFile(appId, services.files!));
      if (opts.out) writeFileSync(opts.out, text);
      else process.stdout.write(text);
    });
  tests
    .command("import")
    .description("add the cases (and settings) of a side file to an app; a case whose id the app has is replaced")
    .argument("<app-id>")
    .argument("<file>")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (appId, file, opts) => {
      const r = await withAppTests(opts, (t, _s, services) =>
        t.importFile(appId, readFileSync(file, "utf8"), file, services.files!),
      );
      if (opts.json) return printJson(r);
      process.stdout.write(`imported ${r.added} new and ${r.replaced} replaced test case(s) into ${appId}\n`);
    });
  tests
    .command("require")
    .description("make publishing the app require its tests to pass (--off: no longer)")
    .argument("<app-id>")
    .option("--off", "publishing no longer runs the tests")
    .option("--k <k>", "runs per case when the gate runs")
    .option("--min-pass-hat-k <x>", "the pass^k publishing needs (0..1; default 1: every run passes)")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (appId, opts) => {
      const min = opts.minPassHatK === undefined ? undefined : Number(opts.minPassHatK);
      const s = await withAppTests(opts, (t) =>
        t.setSettings(appId, {
          requirePass: !opts.off,
          ...(opts.k !== undefined ? { k: int(opts.k, "k", 1)! } : {}),
          ...(min !== undefined ? { minPassHatK: min } : {}),
        }),
      );
      if (opts.json) return printJson(s);
      process.stdout.write(
        s.requirePass
          ? `publishing ${appId} now requires its tests to pass (k=${s.k}, pass^k ≥ ${s.minPassHatK})\n`
          : `publishing ${appId} no longer runs its tests\n`,
      );
    });
}

/** `weft tests …`: an app's own test cases, run against a version, the draft, or before publishing. */
export function registerTestsCommands(program: Command): void {
  const tests = program
    .command("tests")
    .description("an app's test cases: add (from runs), list, run (pass^k), export/import");
  registerCaseCommands(tests);
  registerRunCommand(tests);
  registerFileCommands(tests);
}
