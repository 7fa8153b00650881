import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { z } from "zod";
import { CliError } from "./output.js";

/**
 * The non-LLM sections of weft.config.json (the `llm` section belongs to src/llm/config.ts).
 * `http.allowPrivate` is the workflow owner's explicit permission to reach loopback/private hosts.
 */
const WeftConfigSchema = z
  .object({
    http: z
      .object({ allowPrivate: z.boolean().default(false), allowHosts: z.array(z.string()).default([]) })
      .default({ allowPrivate: false, allowHosts: [] }),
    files: z.object({ dir: z.string().default(".weft/files") }).default({ dir: ".weft/files" }),
    db: z.string().default("weft.db"),
  })
  .loose();
export type WeftConfig = z.infer<typeof WeftConfigSchema>;

/** The help of every `--db` option: what a database specifier may be (see `openStores`). */
export const DB_HELP =
  "database: a SQLite file (default from config: weft.db), sqlite:PATH, postgres://USER@HOST:PORT/DB[?schema=S&pool_max=N], or :memory:";

export function configPath(explicit?: string): string {
  return resolve(explicit ?? process.env.WEFT_CONFIG ?? "weft.config.json");
}

export function loadWeftConfig(explicit?: string): WeftConfig {
  const path = configPath(explicit);
  if (!existsSync(path)) {
    if (explicit) throw new CliError("config.missing", `config file ${path} does not exist`);
    return WeftConfigSchema.parse({});
  }
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new CliError("config.invalid_json", `${path} is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = WeftConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const iss = parsed.error.issues[0]!;
    throw new CliError("config.invalid", `${path}: ${iss.path.join(".") || "(root)"}: ${iss.message}`);
  }
  return parsed.data;
}
