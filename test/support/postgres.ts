// A throwaway PostgreSQL cluster for tests and benchmarks: initdb in a temp dir, the server on a free loopback
// port, stopped by its pid. PostgreSQL refuses to run as root, so as root (CI) the cluster belongs to the
// `postgres` user Debian's package creates (or `nobody`). Binaries: WEFT_PG_BIN, else the newest
// /usr/lib/postgresql/*/bin.
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import pg from "pg";

export function postgresBinDir(): string | undefined {
  const has = (d: string) => existsSync(join(d, "initdb")) && existsSync(join(d, "postgres"));
  if (process.env.WEFT_PG_BIN) return has(process.env.WEFT_PG_BIN) ? process.env.WEFT_PG_BIN : undefined;
  const root = "/usr/lib/postgresql";
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root)
    .filter((v) => /^\d+$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  return versions.map((v) => join(root, v, "bin")).find(has);
}

export const hasPostgres = postgresBinDir() !== undefined;

/**
 * Whether the PostgreSQL the tests start has an extension installed (its control file in the server's share
 * directory): `pg_config --sharedir` of the same bin directory, else Debian's /usr/share/postgresql/VERSION.
 */
export function pgExtensionInstalled(name: string): boolean {
  const bin = postgresBinDir();
  if (!bin) return false;
  const pgConfig = join(bin, "pg_config");
  const fromConfig = existsSync(pgConfig)
    ? spawnSync(pgConfig, ["--sharedir"], { encoding: "utf8" }).stdout?.trim()
    : "";
  const share = fromConfig || join("/usr/share/postgresql", basename(dirname(bin)));
  return existsSync(join(share, "extension", `${name}.control`));
}

/** uid/gid to run the server as: ourselves, unless we are root. */
function serverUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const passwd = readFileSync("/etc/passwd", "utf8").split("\n");
  for (const name of ["postgres", "nobody"]) {
    const f = passwd.find((l) => l.startsWith(`${name}:`))?.split(":");
    if (f) return { uid: Number(f[2]), gid: Number(f[3]) };
  }
  throw new Error("running as root, and neither a postgres nor a nobody user exists to run PostgreSQL as");
}

export async function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer().listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => res(port));
    });
  });
}

export interface PgCluster {
  port: number;
  /** postgres:// URL of a database (user `weft`, no password: the cluster trusts loopback). */
  url(database: string): string;
  /** A new, empty database; returns its URL. */
  createDatabase(name?: string): Promise<string>;
  /** The server's pid (to kill it in a test). */
  readonly pid: number;
  /** Stop the server (fast shutdown; SIGKILL after 10 s) and remove its files. */
  stop(): Promise<void>;
  /** Stop the server, keeping its files (the database "goes away"). */
  halt(): Promise<void>;
  /** Stop and start it again on the same port and files. */
  restart(): Promise<void>;
}

export interface StartPostgresOptions {
  /** fsync and synchronous commit (default off: tests need no power-loss safety; benchmarks turn it on). */
  durable?: boolean;
  maxConnections?: number;
}

let dbCount = 0;

async function runServer(bin: string, args: string[], user?: { uid: number; gid: number }): Promise<ChildProcess> {
  const server = spawn(bin, args, { stdio: ["ignore", "ignore", "pipe"], ...user });
  let log = "";
  server.stderr!.on("data", (d) => {
    if (log.length < 20_000) log += d;
  });
  await new Promise<void>((res, rej) => {
    const t0 = Date.now();
    const tick = setInterval(() => {
      if (log.includes("ready to accept connections")) {
        clearInterval(tick);
        res();
      } else if (server.exitCode !== null || Date.now() - t0 > 60_000) {
        clearInterval(tick);
        rej(new Error(`PostgreSQL did not start: ${log.slice(-2000)}`));
      }
    }, 50);
  });
  return server;
}

export async function startPostgres(o: StartPostgresOptions = {}): Promise<PgCluster> {
  const bin = postgresBinDir();
  if (!bin) throw new Error("PostgreSQL is not installed (apt-get install postgresql, or set WEFT_PG_BIN)");
  const user = serverUser();
  const dir = mkdtempSync(join(tmpdir(), "weft-pg-"));
  if (user) chownSync(dir, user.uid, user.gid);
  const data = join(dir, "data");
  const init = spawnSync(
    join(bin, "initdb"),
    ["-D", data, "-A", "trust", "-U", "weft", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"],
    { encoding: "utf8", timeout: 120_000, ...user },
  );
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr || init.error?.message}`);
  const port = await freePort();
  const durable = o.durable ? [] : ["-c", "fsync=off", "-c", "synchronous_commit=off", "-c", "full_page_writes=off"];
  const args = ["-D", data, "-p", String(port), "-k", dir, "-c", "listen_addresses=127.0.0.1"];
  args.push("-c", `max_connections=${o.maxConnections ?? 200}`, ...durable);
  let server = await runServer(join(bin, "postgres"), args, user);
  const killOnExit = () => server.kill("SIGKILL");
  process.once("exit", killOnExit);
  const halt = async () => {
    if (server.exitCode !== null || server.signalCode !== null) return;
    const exited = new Promise((r) => server.once("exit", r));
    server.kill("SIGINT");
    const t = setTimeout(() => server.kill("SIGKILL"), 10_000);
    await exited;
    clearTimeout(t);
  };
  const url = (database: string) => `postgres://weft@127.0.0.1:${port}/${database}`;
  return {
    port,
    get pid() {
      return server.pid!;
    },
    url,
    async createDatabase(name = `t${process.pid}_${++dbCount}`) {
      const admin = new pg.Client({ connectionString: url("postgres") });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      return url(name);
    },
    async stop() {
      process.removeListener("exit", killOnExit);
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
    halt,
    async restart() {
      await halt();
      server = await runServer(join(bin, "postgres"), args, user);
    },
  };
}
