import type { Command } from "@commander-js/extra-typings";
import { publishThroughGate } from "../../apptests/gate.js";
import { formatDiagnostic } from "../../ir/diagnostics.js";
import { DraftStaleError, publishDraft, publishVersion, saveDraft } from "../../server/drafts.js";
import { ApiError } from "../../server/errors.js";
import { openStores, type Stores } from "../../store/open.js";
import { syncAppTriggers } from "../../triggers/sync.js";
import { withAppTests } from "../app-tests.js";
import { cliActorLabel, recordCliAudit } from "../audit.js";
import { DB_HELP, loadWeftConfig } from "../config.js";
import { readWorkflow } from "../io.js";
import { CliError, printJson } from "../output.js";

function positive(raw: string, flag: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError(`usage.${flag}`, `--${flag} must be a positive integer, got "${raw}"`);
  return n;
}

/** Diagnostics go to stderr one per line, then the error itself (the caller's exit code follows from it). */
async function explained<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof ApiError) for (const d of e.diagnostics ?? []) process.stderr.write(`${formatDiagnostic(d)}\n`);
    if (e instanceof DraftStaleError) process.stderr.write(`the current draft is revision ${e.current.revision}\n`);
    throw e;
  }
}

async function withStores<T>(db: string, f: (s: Stores) => Promise<T>): Promise<T> {
  const stores = await openStores(db);
  try {
    return await explained(() => f(stores));
  } finally {
    await stores.close();
  }
}

/** `weft apps draft` and `weft apps publish`: the CLI side of the studio's autosave and Publish button. */
export function registerDraftCommands(apps: Command): void {
  apps
    .command("draft")
    .description("save a workflow file as the app's draft, errors and all (what the studio edits and runs)")
    .argument("<app-id>")
    .argument("<file>")
    .option("--revision <n>", "only if the draft is still at this revision (refused if someone saved meanwhile)")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (appId, file, opts) => {
      const db = opts.db ?? loadWeftConfig(opts.config).db;
      const expected = opts.revision === undefined ? undefined : positive(opts.revision, "revision");
      const { workflow } = await readWorkflow(file);
      const d = await withStores(db, (s) => saveDraft(s.apps, appId, workflow, expected));
      if (opts.json)
        return printJson({ appId, revision: d.revision, baseVersion: d.baseVersion, diagnostics: d.diagnostics });
      for (const x of d.diagnostics) process.stderr.write(`${formatDiagnostic(x)}\n`);
      const errors = d.diagnostics.filter((x) => x.severity === "error").length;
      process.stdout.write(
        `draft of ${appId} saved: revision ${d.revision}${errors ? `, ${errors} error(s) to fix before publishing` : ", no errors"}\n`,
      );
    });
  apps
    .command("publish")
    .description(
      "publish the app's draft (refused while the analyser finds errors), or with --to an existing version (rollback)",
    )
    .argument("<app-id>")
    // Not --version: the program's own --version would answer first.
    .option("--to <n>", "publish this existing version instead of the draft (a rollback when older)")
    .option("--note <text>", "a note for the version publishing makes", "")
    .option("--allow-warnings", "publish a version whose only errors Dify runs anyway (they are shown as warnings)")
    .option(
      "--override-tests <reason>",
      "publish although the app's required tests fail (the owner's decision; the reason and failing cases are recorded)",
    )
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (appId, opts) => {
      const n = opts.to === undefined ? undefined : positive(opts.to, "to");
      const allow = { allowWarnings: !!opts.allowWarnings };
      const override =
        opts.overrideTests === undefined ? undefined : { reason: opts.overrideTests, by: cliActorLabel() };
      const p = await withAppTests(opts, (tests, s) =>
        explained(async () => {
          const { published, gate } = await publishThroughGate(
            tests,
            appId,
            n === undefined ? { draft: true } : { version: n },
            () =>
              n === undefined ? publishDraft(s.apps, appId, opts.note, allow) : publishVersion(s.apps, appId, n, allow),
            (x) => x.version.version,
            override,
          );
          await syncAppTriggers(s, appId);
          await recordCliAudit(s, {
            action: "apps publish",
            target: `app:${appId}`,
            workspaceId: await s.teams.ownerOf("app", appId),
            detail: {
              version: published.version.version,
              ...(gate.override ? { override: { reason: gate.override.reason, failing: gate.override.failing } } : {}),
            },
          });
          return { ...published, gate };
        }),
      );
      if (opts.json)
        return printJson({
          appId,
          published: p.version.version,
          created: p.created,
          warnings: p.warnings,
          tests: p.gate,
        });
      if (p.gate.required)
        process.stderr.write(
          `tests: ${p.gate.passed}/${(p.gate.passed ?? 0) + (p.gate.failed ?? 0)} pass${p.gate.override ? `; published over failing case(s) ${p.gate.failing!.join(", ")}: ${p.gate.override.reason}` : ""}\n`,
        );
      for (const w of p.warnings) process.stderr.write(`${formatDiagnostic(w)}\n`);
      process.stdout.write(
        `published ${appId} version ${p.version.version}${p.created ? " (new, from the draft)" : ""}\n`,
      );
    });
}
