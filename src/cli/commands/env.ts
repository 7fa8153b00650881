import type { Command } from "@commander-js/extra-typings";
import { AppEnv } from "../../secrets/app-env.js";
import { EnvError } from "../../secrets/errors.js";
import { KeyProvider, keyFilePath } from "../../secrets/key.js";
import { rotateKey } from "../../secrets/rotate.js";
import { openStores, parseStoreSpec } from "../../store/open.js";
import { DB_HELP, loadWeftConfig } from "../config.js";
import { CliError, EXIT, printJson } from "../output.js";

/** Everything on stdin, minus one trailing newline (what `echo` or a here-string adds). */
async function readStdin(): Promise<string> {
  if (process.stdin.isTTY) process.stderr.write("value (end with Ctrl-D): ");
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString("utf8")
    .replace(/\r?\n$/, "");
}

interface DbOpts {
  db?: string;
  config?: string;
}

async function withEnv<T>(o: DbOpts, f: (env: AppEnv) => Promise<T>): Promise<T> {
  const cfg = loadWeftConfig(o.config);
  const db = o.db ?? cfg.db;
  if (parseStoreSpec(db).kind === "memory")
    throw new CliError(
      "apps.not_stored",
      `variables set in "${db}" would be gone when this command ends; use the server's database`,
    );
  const stores = await openStores(db);
  try {
    return await f(new AppEnv(stores.env, stores.apps, new KeyProvider(keyFilePath(db, cfg.secretKeyFile))));
  } catch (e) {
    // Bad names and values are the user's input (exit 1, as the API's 400s), like an unknown app.
    if (e instanceof EnvError) throw new CliError(e.code, e.message, EXIT.invalid);
    throw e;
  } finally {
    await stores.close();
  }
}

/** `weft env`: an app's environment variables; secret values go in on stdin and never come out. */
export function registerEnvCommands(program: Command): void {
  const env = program
    .command("env")
    .description("an app's environment variables and secrets (secrets encrypted at rest, never shown)");
  env
    .command("set")
    .description("set a variable from stdin (never on the command line): a string, or --number, or --secret")
    .argument("<app-id>")
    .argument("<name>")
    .option("--secret", "encrypt it; it is never shown, exported or recorded in runs")
    .option("--number", "a number variable")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .action(async (appId, name, opts) => {
      if (opts.secret && opts.number) throw new CliError("usage.env_type", "--secret and --number exclude each other");
      const type = opts.secret ? "secret" : opts.number ? "number" : "string";
      const value = await readStdin();
      const v = await withEnv(opts, (e) => e.set(appId, name, type, value));
      process.stdout.write(`${v.name} (${v.type}) set for ${appId}\n`);
    });
  env
    .command("list")
    .description("list variables: name, type, value (secrets only as set/unset)")
    .argument("<app-id>")
    .option("--json", "print as JSON")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .action(async (appId, opts) => {
      const vars = await withEnv(opts, (e) => e.list(appId));
      if (opts.json) return printJson({ variables: vars });
      for (const v of vars) {
        const shown = v.type === "secret" ? (v.set ? "(set)" : "(unset)") : v.set ? JSON.stringify(v.value) : "(unset)";
        process.stdout.write(`${v.name}  ${v.type.padEnd(6)}  ${shown}\n`);
      }
      if (vars.length === 0) process.stdout.write("no variables\n");
    });
  env
    .command("delete")
    .description("delete a variable's stored value")
    .argument("<app-id>")
    .argument("<name>")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .action(async (appId, name, opts) => {
      await withEnv(opts, (e) => e.delete(appId, name));
      process.stdout.write(`${name} deleted from ${appId}\n`);
    });
  env
    .command("rotate-key")
    .description(
      "re-encrypt every secret with a new key (key file: replaced; WEFT_SECRET_KEY: from WEFT_NEW_SECRET_KEY)",
    )
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .action(async (opts) => {
      const r = await withEnv(opts, (e) => rotateKey(e));
      process.stdout.write(`${r.resealed} secret(s) re-encrypted with key ${r.keyId}; the new key is in ${r.where}\n`);
    });
}
