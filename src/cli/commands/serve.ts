import type { Command } from "@commander-js/extra-typings";
import { WeftError } from "../../ir/errors.js";
import { loadLlmConfig } from "../../llm/index.js";
import { buildServices } from "../../runtime/services.js";
import { setupLinkIfEmpty } from "../../server/auth/links.js";
import { oidcSettings } from "../../server/auth/oidc/config.js";
import { startServer } from "../../server/index.js";
import { ensureSampleApp, sampleKey, sampleKeyPath, sampleSignIn } from "../../server/sample.js";
import type { AppStore } from "../../store/apps.js";
import { openStores, parseStoreSpec } from "../../store/open.js";
import { DEFAULT_WORKSPACE_ID, ROLES } from "../../store/teams.js";
import { DB_HELP, loadWeftConfig } from "../config.js";
import { openProcessObservability } from "../observability.js";
import { CliError, EXIT, printJson } from "../output.js";
import { createAppKey } from "./apps.js";

/** A bad auth.oidc stops the start with one line naming the setting (exit 2), before anything opens. */
function ssoSettings(raw: unknown) {
  try {
    return oidcSettings(raw);
  } catch (e) {
    if (e instanceof WeftError) throw new CliError(e.code, e.message);
    throw e;
  }
}

function port(raw: string): number {
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new CliError("usage.port", `--port must be 0-65535, got "${raw}"`);
  return n;
}

async function withAppStore<T>(db: string, f: (apps: AppStore) => Promise<T>): Promise<T> {
  const stores = await openStores(db);
  try {
    return await f(stores.apps);
  } finally {
    await stores.close();
  }
}

export function registerServeCommands(program: Command): void {
  program
    .command("serve")
    .description("serve the HTTP API and the web UI")
    .option("--port <n>", "port (0 = any free port)", "3000")
    .option("--host <addr>", "address to listen on", "127.0.0.1")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--model <name>", "model name for the chat agent (routed by weft.config.json / WEFT_LLM_*)")
    .option(
      "--redis <url>",
      "queue scheduled runs on Redis for `weft worker`s instead of running them here (default WEFT_REDIS_URL when set)",
    )
    .option("--no-schedules", "do not fire the schedule triggers of published apps in this process")
    .option("--sample", "preload the sample app and print its API key (the same one on every restart)")
    .option(
      "--synchronous <mode>",
      "SQLite durability: full (sync every commit) or normal (faster; survives a crash of the process, not of the machine)",
      "full",
    )
    .option("--log-format <f>", "event log on stderr: json (one object a line) or pretty (default on a terminal)")
    .action(async (opts) => {
      const cfg = loadWeftConfig(opts.config);
      const db = opts.db ?? cfg.db;
      const oidc = ssoSettings(cfg.auth?.oidc);
      const obs = await openProcessObservability(cfg, {
        name: "weft-serve",
        source: "serve",
        logFormat: opts.logFormat,
      });
      const services = await buildServices(cfg, { configPath: opts.config });
      if (opts.synchronous !== "full" && opts.synchronous !== "normal")
        throw new CliError("usage.synchronous", `--synchronous must be full or normal, got "${opts.synchronous}"`);
      // A port in use or not permitted is the user's to fix: one line, exit 2.
      const server = await startServer({
        db,
        port: port(opts.port),
        host: opts.host,
        services: obs.wrap(services),
        observer: obs.observer,
        prices: cfg.observability?.prices,
        onFailure: obs.onFailure,
        metrics: obs.metrics,
        metricsToken: process.env.WEFT_METRICS_TOKEN || undefined,
        log: obs.log,
        llmConfig: loadLlmConfig({ path: opts.config }),
        synchronous: opts.synchronous,
        knowledgeConfig: cfg.knowledge,
        oidc,
        retention: { maxAgeDays: cfg.runs.retention.days, maxRunsPerApp: cfg.runs.retention.perApp },
        agentModel: { provider: "weft-agent", name: opts.model ?? "" },
        secretKeyFile: cfg.secretKeyFile,
        schedules:
          opts.schedules === false
            ? false
            : { redisUrl: opts.redis ?? process.env.WEFT_REDIS_URL, tracing: obs.tracing },
        warmup: true,
      }).catch((e: unknown) => {
        if (e instanceof WeftError && (e.code.startsWith("server.") || e.code.startsWith("secret.")))
          throw new CliError(e.code, e.message);
        throw e;
      });
      // The server is listening: a failure from here on must close it, or the process would serve on without
      // having said so (and a supervisor waiting for "serving on" would wait forever).
      try {
        const setup = opts.sample ? undefined : await setupLinkIfEmpty(server.deps.stores, server.url);
        if (opts.sample) {
          const app = await ensureSampleApp(server.deps.apps);
          const { key, reused } = await sampleKey(server.deps.apps, db);
          const kept = sampleKeyPath(db);
          const signIn = await sampleSignIn(server.deps.stores, server.url);
          process.stdout.write(
            `sample app "${app.name}" (${app.id})\nsign in: ${signIn.url}\n(${signIn.created ? "a local owner was created" : "signs in"} as ${signIn.email}; the link works once)\nAPI key: ${key}\n` +
              (kept
                ? `(${reused ? "the same key as before" : "new key"}, kept in ${kept}; it stays valid across restarts)\n`
                : "(an in-memory database: this key ends with the server)\n"),
          );
        } else if (setup) {
          process.stdout.write(
            `no account exists yet: open ${setup} once to create the owner (valid 24 hours), or run \`weft users create --email E --role owner --password-stdin\`\n`,
          );
        } else if ((await server.deps.apps.listKeys()).length === 0) {
          const appKeys = (await server.deps.stores.service.listAppKeys()).length;
          process.stderr.write(
            appKeys > 0
              ? "no API key for the web studio and /api yet: create one with `weft keys create` (the app keys serve /v1)\n"
              : "no API key exists yet: `weft keys create` for the web studio and /api, `weft keys create --app APP_ID` for the Dify service API (/v1)\n",
          );
        }
      } catch (e) {
        await server.close().catch(() => {});
        await services.close().catch(() => {});
        await obs.shutdown().catch(() => {});
        throw e;
      }
      process.stdout.write(`weft serving on ${server.url}\n`);
      obs.log.info(
        {
          event: "server.start",
          url: server.url,
          db: server.deps.stores.kind,
          tracing: obs.tracing !== undefined,
          metrics: `${server.url}/metrics`,
        },
        `weft serving on ${server.url}`,
      );
      const stop = (signal: string) => {
        obs.log.info({ event: "server.stop", signal }, "shutting down");
        void server
          .close()
          .then(() => services.close())
          .then(() => obs.shutdown())
          .then(() => process.exit(0));
      };
      process.once("SIGINT", () => stop("SIGINT"));
      process.once("SIGTERM", () => stop("SIGTERM"));
    });

  const keys = program.command("keys").description("API keys for `weft serve`");
  keys
    .command("create")
    .description(
      "create an API key (printed once; only its hash is stored); with --app, an app-… key of the Dify service API (/v1) bound to that app",
    )
    .option("--db <spec>", DB_HELP)
    .option("--app <id>", "bind the key to this app (the Dify service API's app key)")
    .option("--name <name>", "a label for the key", "default")
    .option("--role <role>", `the role the key acts with in the default workspace (${ROLES.join("|")})`, "owner")
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (opts) => {
      const db = opts.db ?? loadWeftConfig(opts.config).db;
      if (opts.app) {
        const k = await createAppKey(db, opts.app);
        if (opts.json) printJson({ ...k, appId: opts.app });
        else process.stdout.write(`${k.key}\n`);
        return;
      }
      if (parseStoreSpec(db).kind === "memory")
        throw new CliError(
          "keys.not_stored",
          `a key created in "${db}" would be gone when this command ends; use the server's database`,
        );
      if (!(ROLES as readonly string[]).includes(opts.role))
        throw new CliError("usage.role", `--role must be one of ${ROLES.join(", ")}, got "${opts.role}"`);
      const k = await withAppStore(db, (a) =>
        a.createKey(opts.name, { workspaceId: DEFAULT_WORKSPACE_ID, role: opts.role }),
      );
      if (opts.json) printJson({ ...k, role: opts.role });
      else process.stdout.write(`${k.key}\n`);
    });
  keys
    .command("list")
    .description("list API keys (ids and names; keys themselves are not stored)")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (opts) => {
      const list = await withAppStore(opts.db ?? loadWeftConfig(opts.config).db, (a) => a.listKeys());
      if (opts.json) return printJson(list);
      for (const k of list)
        process.stdout.write(
          `${k.id}  ${k.name}  ${k.role}@${k.workspaceId}  ${new Date(k.createdAt).toISOString()}\n`,
        );
      if (list.length === 0) process.stdout.write("no API keys\n");
    });
  keys
    .command("revoke")
    .description("delete an API key by id")
    .argument("<id>")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .action(async (id, opts) => {
      const ok = await withAppStore(opts.db ?? loadWeftConfig(opts.config).db, (a) => a.revokeKey(id));
      if (!ok) throw new CliError("keys.not_found", `no API key with id ${id}`, EXIT.invalid);
      process.stdout.write(`revoked ${id}\n`);
    });
}
