import { StoreSpecError } from "../errors.js";

/** What `postgres://…` names: the server, the schema Weft's tables live in, and the pool's bound. */
export interface PostgresSpec {
  /** The URL handed to `pg`, without Weft's own parameters. */
  connectionString: string;
  /** The same with any password removed: what messages and logs show. */
  label: string;
  /** Schema holding Weft's tables (default `weft`), so Weft never collides with other tables in a shared database. */
  schema: string;
  /** Most connections one process opens (default 10). */
  poolMax: number;
  /** PostgreSQL text-search configuration new knowledge bases are indexed with (default `english`). */
  textSearch: string;
  /**
   * `auto` (default): vectors through pgvector's HNSW index when the server has the extension, else LSH
   * buckets; `lsh`: LSH buckets even where pgvector exists.
   */
  vectorIndex: "auto" | "lsh";
}

const DEFAULT_POOL_MAX = 10;
const MAX_POOL_MAX = 1000;
// Quoting is avoided altogether by allowing only plain identifiers (PostgreSQL folds unquoted names to lower case).
const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;
const TEXT_SEARCH_NAME = /^([a-z_][a-z0-9_]{0,62}\.)?[a-z_][a-z0-9_]{0,62}$/;

const bad = (label: string, reason: string) =>
  new StoreSpecError("store.bad_spec", `${label}: ${reason}`, { spec: label });

/** Hide the password of a connection URL; an unparsable one is shown only up to its host part. */
export function redactUrl(spec: string): string {
  try {
    const u = new URL(spec);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return spec.replace(/\/\/[^@/]*@/, "//***@");
  }
}

/**
 * Read a `postgres://` / `postgresql://` specifier. Weft's own query parameters are `schema=NAME`,
 * `pool_max=N`, `text_search=CONFIG` (a text-search configuration such as english, simple, german) and
 * `vector_index=auto|lsh` (pgvector's HNSW when installed, or LSH buckets regardless); every other parameter (sslmode, application_name, …) goes to the driver unchanged.
 */
export function parsePostgresSpec(spec: string): PostgresSpec {
  const label = redactUrl(spec);
  let url: URL;
  try {
    url = new URL(spec);
  } catch {
    throw bad(label, "not a valid URL; expected postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE");
  }
  if (!/^postgres(ql)?:$/i.test(url.protocol)) throw bad(label, "not a postgres:// URL");
  const schema = (url.searchParams.get("schema") ?? "weft").trim();
  if (!SCHEMA_NAME.test(schema))
    throw bad(label, `schema "${schema}" must be a lower-case identifier (letters, digits, _), at most 63 long`);
  const rawMax = url.searchParams.get("pool_max");
  const poolMax = rawMax === null ? DEFAULT_POOL_MAX : Number(rawMax);
  if (!Number.isInteger(poolMax) || poolMax < 1 || poolMax > MAX_POOL_MAX)
    throw bad(label, `pool_max "${rawMax}" must be a whole number from 1 to ${MAX_POOL_MAX}`);
  const textSearch = (url.searchParams.get("text_search") ?? "english").trim();
  if (!TEXT_SEARCH_NAME.test(textSearch))
    throw bad(
      label,
      `text_search "${textSearch}" must name a text-search configuration (letters, digits, _; optionally schema.name)`,
    );
  const vectorIndex = (url.searchParams.get("vector_index") ?? "auto").trim();
  if (vectorIndex !== "auto" && vectorIndex !== "lsh")
    throw bad(label, `vector_index "${vectorIndex}" must be auto (pgvector when installed, else LSH) or lsh`);
  url.searchParams.delete("vector_index");
  url.searchParams.delete("schema");
  url.searchParams.delete("pool_max");
  url.searchParams.delete("text_search");
  return {
    connectionString: url.toString(),
    label: redactUrl(url.toString()),
    schema,
    poolMax,
    textSearch,
    vectorIndex,
  };
}
