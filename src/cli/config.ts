import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type WeftConfig, WeftConfigSchema } from "../config/weft-config.js";
import { CliError } from "./output.js";

export type { WeftConfig };

/** The help of every `--db` option: what a database specifier may be (see `openStores`). */
export const DB_HELP =
  "database: a SQLite file (default from config: weft.db), sqlite:PATH, postgres://USER@HOST:PORT/DB[?schema=S&pool_max=N&text_search=CONFIG], or :memory:";

export function configPath(explicit?: string): string {
  return resolve(explicit ?? process.env.WEFT_CONFIG ?? "weft.config.json");
}

/** weft.config.json (src/config/weft-config.ts is its schema); defaults when there is none. */
export function loadWeftConfig(explicit?: string): WeftConfig {
  const path = configPath(explicit);
  if (!existsSync(path)) {
    if (explicit) throw new CliError("config.missing", `config file ${path} does not exist`);
    return { ...WeftConfigSchema.parse({}), baseDir: process.cwd() };
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
  return { ...parsed.data, baseDir: dirname(path) };
}
