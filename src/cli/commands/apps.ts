import { syncAppTriggers } from "../../triggers/sync.js";
import type { Command } from "@commander-js/extra-typings";
import { analyse } from "../../analysis/index.js";
// Without the node types registered every node would be "unknown" to the analyser (and no import published).
import "../../nodes/index.js";
import { formatDiagnostic, hasErrors } from "../../ir/diagnostics.js";
import { AppEnv, takeSecretValues } from "../../secrets/app-env.js";
import { KeyProvider, keyFilePath } from "../../secrets/key.js";
import { settleImportedSecrets } from "../../server/env-import.js";
import { openStores, parseStoreSpec } from "../../store/open.js";
import { DB_HELP, loadWeftConfig } from "../config.js";
import { readWorkflow } from "../io.js";
import { CliError, EXIT, printJson } from "../output.js";
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
    .option("--json", "print as JSON")
    .action(async (file, opts) => {
      const cfg = loadWeftConfig(opts.config);
      const db = sharedDb(opts.db ?? cfg.db, "an app imported");
      const read = await readWorkflow(file);
      // Secret values the file carries are sealed into the app's env store, never kept in its versions.
      const { workflow, secrets } = takeSecretValues(read.workflow);
      const diagnostics = analyse(workflow).diagnostics;
      const stores = await openStores(db);
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
        if (opts.json) return printJson({ app, version: version.version, published, warnings, diagnostics });
        for (const d of [...warnings, ...diagnostics]) process.stderr.write(`${formatDiagnostic(d)}\n`);
        const state = published
          ? "published"
          : `saved as a draft, not published: fix its errors, then \`weft apps publish ${app.id}\``;
        process.stdout.write(
          `imported "${app.name}" (${app.mode}), ${workflow.nodes.length} nodes, ${state}\n${app.id}\n`,
        );
      } finally {
        await stores.close();
      }
    });
  apps
    .command("list")
    .description("list apps: id, mode, current version, name")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (opts) => {
      const stores = await openStores(opts.db ?? loadWeftConfig(opts.config).db);
      try {
        const list = await stores.apps.listApps();
        const versions = await Promise.all(list.map((a) => stores.apps.current(a.id)));
        const rows = list.map((a, i) => ({ ...a, version: versions[i]?.version ?? 0 }));
        if (opts.json) return printJson(rows);
        for (const a of rows) {
          const live = a.publishedVersion === undefined ? "unpublished" : `published v${a.publishedVersion}`;
          process.stdout.write(`${a.id}  ${a.mode.padEnd(13)} v${a.version} (${live})  ${a.name}\n`);
        }
        if (rows.length === 0) process.stdout.write("no apps\n");
      } finally {
        await stores.close();
      }
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
