import { StoreError } from "../errors.js";

/**
 * PostgreSQL's SQLSTATE codes (exact, or by two-character class) and the driver's socket errors, with what
 * each means for the user, mapped onto the same `store.*` codes the SQLite store uses where one fits.
 */
const BY_SQLSTATE: Array<[state: string, code: string, reason: string]> = [
  ["28P01", "store.auth_failed", "the server refused the user name or password"],
  ["28000", "store.auth_failed", "the server refused this user (check pg_hba.conf and the user name)"],
  ["3D000", "store.cannot_open", "the database does not exist (create it with createdb)"],
  ["42501", "store.read_only", "this database user may not do this (permission denied)"],
  ["25006", "store.read_only", "the server is read-only (a standby?)"],
  ["53100", "store.full", "the server's disk is full"],
  ["53300", "store.busy", "the server has no connection slots left (lower pool_max or raise max_connections)"],
  ["40001", "store.busy", "a concurrent transaction conflicted; try again"],
  ["40P01", "store.busy", "a deadlock was detected; try again"],
  ["55P03", "store.busy", "a lock could not be taken"],
  ["57014", "store.timeout", "the statement was cancelled (statement timeout)"],
  ["57P01", "store.unavailable", "the server is shutting down"],
  ["57P02", "store.unavailable", "the server crashed"],
  ["57P03", "store.unavailable", "the server is not accepting connections yet"],
  ["22021", "store.invalid_value", "a value holds characters PostgreSQL text cannot store (a NUL byte?)"],
  ["22P05", "store.invalid_value", "a value holds characters PostgreSQL cannot store"],
  ["54000", "store.invalid_value", "a value is too large for PostgreSQL"],
  ["XX001", "store.corrupt", "the server reports corrupt data"],
  ["XX002", "store.corrupt", "the server reports a corrupt index"],
  ["08", "store.unavailable", "the connection to the server failed"],
  ["53", "store.busy", "the server ran out of a resource"],
];

const SOCKET = new Set(["ECONNREFUSED", "ECONNRESET", "ETIMEDOUT", "EPIPE", "EHOSTUNREACH", "ENETUNREACH"]);
const NO_HOST = new Set(["ENOTFOUND", "EAI_AGAIN"]);
// The driver's own words for a connection that went away or never came.
const GONE =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|Client has encountered a connection error|Connection ended|Cannot use a pool after calling end/i;

function classify(e: Error & { code?: unknown }): [code: string, reason: string] {
  const c = typeof e.code === "string" ? e.code : "";
  if (/^[0-9A-Z]{5}$/.test(c)) {
    const hit = BY_SQLSTATE.find(([s]) => s === c) ?? BY_SQLSTATE.find(([s]) => s.length === 2 && c.startsWith(s));
    return hit ? [hit[1], hit[2]] : ["store.failed", `the statement failed (SQLSTATE ${c})`];
  }
  if (SOCKET.has(c))
    return ["store.unavailable", "the server cannot be reached (is it running, on this host and port?)"];
  if (NO_HOST.has(c)) return ["store.unavailable", "the server's host name does not resolve"];
  if (GONE.test(e.message)) return ["store.unavailable", "the connection to the server was lost or could not be made"];
  return ["store.failed", "the database operation failed"];
}

/** The typed error naming the database for a `pg` failure; Weft's own errors pass through unchanged. */
export function pgStoreError(label: string, e: unknown, Kind: typeof StoreError = StoreError): unknown {
  if (!(e instanceof Error) || e instanceof StoreError) return e;
  const err = e as Error & { code?: unknown };
  const [code, reason] = classify(err);
  const details: Record<string, unknown> = { database: label };
  if (typeof err.code === "string") details.pgCode = err.code;
  return new Kind(code, `${label}: ${reason} (${err.message})`, details);
}
