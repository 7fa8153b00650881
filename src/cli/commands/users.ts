import type { Command } from "@commander-js/extra-typings";
import { createMember } from "../../server/auth/users.js";
import { openStores, parseStoreSpec } from "../../store/open.js";
import { ROLES } from "../../store/teams.js";
import { DB_HELP, loadWeftConfig } from "../config.js";
import { CliError, printJson } from "../output.js";
import { withStores } from "../stores.js";

/** Everything on stdin, minus one trailing newline (what `echo` or a here-string adds). */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("password (end with Ctrl-D): ");
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

export function registerUserCommands(program: Command): void {
  const users = program.command("users").description("accounts that sign in to the studio and /api");
  users
    .command("create")
    .description("create an account with a role in the default workspace (the password is read from stdin)")
    .requiredOption("--email <email>", "the sign-in email")
    .requiredOption("--role <role>", ROLES.join("|"))
    .option("--password-stdin", "read the password from stdin (the only way: never on the command line)")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (opts) => {
      if (!opts.passwordStdin)
        throw new CliError("usage.password", "give the password on stdin with --password-stdin (never as an argument)");
      const db = opts.db ?? loadWeftConfig(opts.config).db;
      if (parseStoreSpec(db).kind === "memory")
        throw new CliError("users.not_stored", `an account created in "${db}" would be gone when this command ends`);
      const password = await readStdin();
      const stores = await openStores(db);
      try {
        const m = await createMember(stores, { email: opts.email, password, role: opts.role });
        const out = { id: m.user.id, email: m.user.email, role: m.role, workspaceId: m.workspaceId };
        if (opts.json) printJson(out);
        else process.stdout.write(`${out.email} (${out.role}) ${out.id}\n`);
      } finally {
        await stores.close();
      }
    });
  users
    .command("list")
    .description("accounts and their roles")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (opts) => {
      const list = await withStores(opts, async (stores) =>
        Promise.all(
          (await stores.teams.listUsers()).map(async (u) => ({
            id: u.id,
            email: u.email,
            memberships: (await stores.teams.membershipsOf(u.id)).map((m) => ({
              workspaceId: m.workspaceId,
              role: m.role,
            })),
          })),
        ),
      );
      if (opts.json) return printJson(list);
      for (const u of list)
        process.stdout.write(
          `${u.email}  ${u.memberships.map((m) => `${m.workspaceId}:${m.role}`).join(" ")}  ${u.id}\n`,
        );
      if (list.length === 0) process.stdout.write("no users\n");
    });
}
