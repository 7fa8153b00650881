import type { Command } from "@commander-js/extra-typings";
import { parseTime } from "../../server/run-query.js";
import type { AuditEntry } from "../../store/audit.js";
import { DB_HELP } from "../config.js";
import { CliError, printJson } from "../output.js";
import { withStores } from "../stores.js";

const line = (e: AuditEntry) =>
  `${new Date(e.at).toISOString()}  ${e.workspaceId}  ${e.actorLabel} (${e.actorKind} ${e.actorId})  ${e.action}` +
  `${e.target ? `  ${e.target}` : ""}${e.detail ? `  ${JSON.stringify(e.detail)}` : ""}\n`;

export function registerAuditCommands(program: Command): void {
  program
    .command("audit")
    .description("the audit log: who changed what, when, with which key or session")
    .option("--since <duration>", "only entries within it (30m, 24h, 7d) or since an ISO time")
    .option("--workspace <id>", "only this workspace's entries (default: every workspace)")
    .option("--limit <n>", "at most this many, newest first (1-1000)", "1000")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON (one array, newest first)")
    .action(async (opts) => {
      let since: number | undefined;
      try {
        since = opts.since === undefined ? undefined : parseTime(opts.since, "--since");
      } catch (e) {
        throw new CliError("usage.since", (e as Error).message);
      }
      const limit = Number(opts.limit);
      if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
        throw new CliError("usage.limit", `--limit must be an integer 1-1000, got "${opts.limit}"`);
      const entries = await withStores(opts, (stores) =>
        stores.audit.list({ since, limit, workspaceId: opts.workspace }),
      );
      if (opts.json) return printJson(entries);
      for (const e of entries) process.stdout.write(line(e));
      if (entries.length === 0) process.stdout.write("no audit entries\n");
    });
}
