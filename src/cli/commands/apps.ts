import { existsSync, readFileSync } from "node:fs";
import type { Command } from "@commander-js/extra-typings";
import { analyse } from "../../analysis/index.js";
import { importWithTests } from "../../apptests/import-regression.js";
import { formatDiagnostic, hasErrors } from "../../ir/diagnostics.js";
// Without the node types registered every node would be "unknown" to the analyser (and no import published).
import { nodeCatalogue } from "../../nodes/index.js";
import { AppEnv, takeSecretValues } from "../../secrets/app-env.js";
import { KeyProvider, keyFilePath } from "../../secrets/key.js";
import { settleImportedSecrets } from "../../server/env-import.js";
import { openStores, parseStoreSpec } from "../../store/open.js";
import { syncAppTriggers } from "../../triggers/sync.js";
import { withAppTests } from "../app-tests.js";
import { DB_HELP, loadWeftConfig } from "../config.js";
import { readWorkflow } from "../io.js";
import { CliError, EXIT, printJson } from "../output.js";
import { withStores } from "../stores.js";
import { registerDraftCommands } from "./app-drafts.js";

/** Apps are what `weft serve` serves; an in-process database would lose them when the command ends. */
function sharedDb(db: string, what: string): string {
  if (parseStoreSpec(db).kind === "memory")
    throw new CliError(
      "apps.not_stored",
      `${what} in "${db}" would be gone when this command ends; use the server's database`,
    );
  return db;
}

export function registerAppCommands(program: Command): void {
  const apps = program
    .command("apps")
    .description("apps that `weft serve` runs (the Dify service API selects one by its key)");
  apps
    .command("import")
    .description(
      "create an app from a Dify DSL file (or Weft JSON), published when the analyser finds no errors; its id is printed on the last line",
    )
    .argument("<file>")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option(
      "--tests <file>",
      "the app's test side file (default: FILE.tests.yml beside it, when there is one); its cases are added and run",
    )
    .option("--json", "print as JSON")
    .action(async (file, opts) => {
      const cfg = loadWeftConfig(opts.config);
      const db = sharedDb(opts.db ?? cfg.db, "an app imported");
      const sideFile = testSideFile(file, opts.tests);
      const read = await readWorkflow(file);
      // Secret values the file carries are sealed into the app's env store, never kept in its versions.
      const { workflow, secrets } = takeSecretValues(read.workflow);
      const diagnostics = analyse(workflow, nodeCatalogue).diagnostics;
      const stores = await openStores(db);
      let open = true;
      try {
        const { app, version } = await stores.apps.createApp(
          { name: workflow.name, mode: workflow.mode, description: workflow.description },
          workflow,
          "import",
          { publish: !hasErrors(diagnostics) },
        );
        const env = new AppEnv(stores.env, stores.apps, new KeyProvider(keyFilePath(db, cfg.secretKeyFile)));
        const warnings = [...read.warnings, ...(await settleImportedSecrets(env, app.id, workflow, secrets))];
        await syncAppTriggers(stores, app.id);
        const published = app.publishedVersion !== undefined;
        // The tests open the database with the configured services themselves.
        open = false;
        await stores.close();
        const tests = sideFile
          ? await withAppTests({ db, config: opts.config }, (t, _s, services) =>
              importWithTests(t, app.id, readFileSync(sideFile, "utf8"), sideFile, services.files!),
            )
          : undefined;
        if (tests && tests.failed > 0) process.exitCode = EXIT.invalid;
        const testsJson = tests
          ? {
              tests: {
                added: tests.added,
                replaced: tests.replaced,
                passed: tests.passed,
                failed: tests.failed,
                line: tests.line,
              },
            }
          : {};
        if (opts.json)
          return printJson({ app, version: version.version, published, warnings, diagnostics, ...testsJson });
        for (const d of [...warnings, ...diagnostics]) process.stderr.write(`${formatDiagnostic(d)}\n`);
        const state = published
          ? "published"
          : `saved as a draft, not published: fix its errors, then \`weft apps publish ${app.id}\``;
        // The id stays the last line (scripts read it); the tests' line comes before it.
        const testsLine = tests ? `${tests.added + tests.replaced} test case(s) from ${sideFile}; ${tests.line}\n` : "";
        process.stdout.write(
          `imported "${app.name}" (${app.mode}), ${workflow.nodes.length} nodes, ${state}\n${testsLine}${app.id}\n`,
        );
      } finally {
        if (open) await stores.close();
      }
    });
  apps
    .command("list")
    .description("list apps: id, mode, current version, name")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (opts) => {
      const rows = await withStores(opts, async (stores) => {
        const list = await stores.apps.listApps();
        const versions = await Promise.all(list.map((a) => stores.apps.current(a.id)));
        return list.map((a, i) => ({ ...a, version: versions[i]?.version ?? 0 }));
      });
      if (opts.json) return printJson(rows);
      for (const a of rows) {
        const live = a.publishedVersion === undefined ? "unpublished" : `published v${a.publishedVersion}`;
        process.stdout.write(`${a.id}  ${a.mode.padEnd(13)} v${a.version} (${live})  ${a.name}\n`);
      }
      if (rows.length === 0) process.stdout.write("no apps\n");
    });
  registerDraftCommands(apps);
}

/** `weft keys create --app APP_ID`: an `app-…` key of the service API, bound to one app. */
export async function createAppKey(db: string, appId: string): Promise<{ id: string; key: string }> {
  const stores = await openStores(sharedDb(db, "a key created"));
  try {
    if (!(await stores.apps.getApp(appId)))
      throw new CliError("app.not_found", `no app with id ${appId} (see \`weft apps list\`)`, EXIT.invalid);
    return await stores.service.createAppKey(appId);
  } finally {
    await stores.close();
  }
}

/** `--tests FILE`, else `NAME.tests.yml` beside `NAME.yml` when it exists (what `weft tests export` is told to write). */
function testSideFile(file: string, given: string | undefined): string | undefined {
  if (given) {
    if (!existsSync(given)) throw new CliError("tests.file_not_found", `no test file ${given}`, EXIT.usage);
    return given;
  }
  const beside = `${file.replace(/\.(ya?ml|json)$/i, "")}.tests.yml`;
  return beside !== file && existsSync(beside) ? beside : undefined;
}
