// What the PostgreSQL store adds beyond the shared contract (contract.test.ts): its specifier, migrations,
// schemas, the pool's bound, and typed errors for servers that are missing, gone or refuse.
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreOpenError } from "../../src/store/errors.js";
import { openStores, parseStoreSpec } from "../../src/store/open.js";
import { createPool, pgDatabase } from "../../src/store/postgres/database.js";
import { MIGRATIONS, migrate, SCHEMA_VERSION } from "../../src/store/postgres/migrations.js";
import { parsePostgresSpec } from "../../src/store/postgres/spec.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { freePort, hasPostgres, type PgCluster, startPostgres } from "../support/postgres.js";

const root = resolve(import.meta.dirname, "../..");
const bin = join(root, "bin/weft");

describe("postgres:// specifiers", () => {
  it("keeps Weft's parameters (schema, pool_max, text_search) out of the driver's URL and never shows the password", () => {
    const s = parsePostgresSpec(
      "postgres://u:secret@db.example:6543/weft?schema=staging&pool_max=3&sslmode=require&text_search=simple",
    );
    expect(s).toEqual({
      connectionString: "postgres://u:secret@db.example:6543/weft?sslmode=require",
      label: "postgres://u:***@db.example:6543/weft?sslmode=require",
      schema: "staging",
      poolMax: 3,
      textSearch: "simple",
      vectorIndex: "auto",
    });
    expect(parsePostgresSpec("postgresql://u@h/d")).toMatchObject({
      schema: "weft",
      poolMax: 10,
      textSearch: "english",
      vectorIndex: "auto",
    });
    expect(parsePostgresSpec("postgresql://u@h/d?vector_index=lsh")).toMatchObject({
      connectionString: "postgresql://u@h/d",
      vectorIndex: "lsh",
    });
    expect(parseStoreSpec("postgres://u@h/d")).toMatchObject({ kind: "postgres", schema: "weft" });
    for (const [spec, why] of [
      ["postgres://u:pw@h/d?schema=a;drop", /schema "a;drop" must be a lower-case identifier/],
      ["postgres://u:pw@h/d?pool_max=2.5", /pool_max "2.5" must be a whole number/],
      ["postgres://u:pw@h/d?text_search=x'y", /text_search "x'y" must name a text-search configuration/],
      ["postgres://u:pw@h/d?pool_max=100000", /pool_max/],
      ["postgres://u:pw@h/d?vector_index=hnsw", /vector_index "hnsw" must be auto/],
    ] as const) {
      let err: Error | undefined;
      try {
        parsePostgresSpec(spec);
      } catch (e) {
        err = e as Error;
      }
      expect(err).toMatchObject({ code: "store.bad_spec", message: expect.stringMatching(why) });
      expect(err!.message).not.toContain("pw");
    }
  });

  it("a server that is not there is a typed open error naming it, without the password, and no hang", async () => {
    const port = await freePort();
    const t0 = Date.now();
    const err = await openStores(`postgres://weft:hunter2@127.0.0.1:${port}/weft`).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(StoreOpenError);
    expect(err).toMatchObject({ code: "store.unavailable", message: expect.stringContaining(`127.0.0.1:${port}`) });
    expect((err as Error).message).not.toContain("hunter2");
    expect(Date.now() - t0).toBeLessThan(30_000);
  });
});

describe.skipIf(!hasPostgres && !process.env.CI)("PostgreSQL store", () => {
  let cluster: PgCluster;
  const dir = mkdtempSync(join(tmpdir(), "weft-pg-cli-"));
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function sql<R>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    try {
      return (await c.query(text, values)).rows as R[];
    } finally {
      await c.end();
    }
  }

  it("migrations: applied once and recorded, even by servers starting together; a newer schema is refused", async () => {
    const url = await cluster.createDatabase();
    const opened = await Promise.all(Array.from({ length: 4 }, () => openStores(url)));
    await Promise.all(opened.map((s) => s.close()));
    const rows = await sql<{ version: number }>(url, "SELECT version FROM weft.weft_migrations ORDER BY version");
    expect(rows.map((r) => r.version)).toEqual(MIGRATIONS.map((m) => m.version));
    // Opening again applies nothing.
    const db = pgDatabase(parsePostgresSpec(url), createPool(parsePostgresSpec(url)));
    expect(await migrate(db)).toEqual([]);
    await db.close();

    await sql(url, "INSERT INTO weft.weft_migrations VALUES ($1, 'from the future', 0)", [SCHEMA_VERSION + 1]);
    await expect(openStores(url)).rejects.toMatchObject({
      code: "store.schema_newer",
      constructor: StoreOpenError,
      message: expect.stringContaining(`version ${SCHEMA_VERSION + 1}, newer than this Weft understands`),
    });
  });

  it("knowledge bases index with the URL's text_search configuration; an unknown one is a typed error naming it", async () => {
    const url = await cluster.createDatabase();
    const chunking = {
      separator: "\n\n",
      maxLength: 300,
      overlap: 30,
      removeExtraSpaces: true,
      removeUrlsEmails: false,
    };
    const simple = await openStores(`${url}?text_search=simple`);
    try {
      await simple.knowledge.createBase({ id: "kb-simple", name: "S", chunking });
      await simple.knowledge.addDocument("kb-simple", { name: "a.md", mimeType: "text/markdown", size: 1 }, [
        { content: "the running dogs" },
      ]);
      // simple keeps stop words and does not stem: "the" matches, "run" does not (english would do the opposite).
      expect((await simple.knowledge.searchText(["kb-simple"], "the", 5))[0]?.content).toBe("the running dogs");
      expect(await simple.knowledge.searchText(["kb-simple"], "run", 5)).toEqual([]);
    } finally {
      await simple.close();
    }
    const english = await openStores(url);
    try {
      await english.knowledge.createBase({ id: "kb-english", name: "E", chunking });
      await english.knowledge.addDocument("kb-english", { name: "a.md", mimeType: "text/markdown", size: 1 }, [
        { content: "the running dogs" },
      ]);
      expect((await english.knowledge.searchText(["kb-english"], "run", 5))[0]?.content).toBe("the running dogs");
      // The base made under simple keeps its configuration when opened with another.
      expect(await english.knowledge.searchText(["kb-simple"], "run", 5)).toEqual([]);
    } finally {
      await english.close();
    }
    const typo = await openStores(`${url}?text_search=englsh`);
    try {
      await expect(typo.knowledge.createBase({ name: "T", chunking })).rejects.toMatchObject({
        code: "knowledge.text_search_config",
        message: expect.stringContaining('no text-search configuration "englsh"'),
      });
    } finally {
      await typo.close();
    }
  });

  it("schemas keep deployments apart in one database, and leave other tables alone", async () => {
    const url = await cluster.createDatabase();
    await sql(url, "CREATE TABLE public.runs (something_else int)");
    const a = await openStores(url);
    const b = await openStores(`${url}?schema=staging`);
    try {
      const wf = buildWorkflow({
        nodes: [{ id: "start", type: "start", variables: [] }, tpl("t", "x")],
        edges: [["start", "t"]],
      });
      await a.runs.createRun({ id: "r1", workflow: wf, inputs: {}, status: "running", createdAt: 1, updatedAt: 1 });
      expect(await b.runs.getRun("r1")).toBeUndefined();
      expect((await a.runs.listRuns()).map((r) => r.id)).toEqual(["r1"]);
    } finally {
      await a.close();
      await b.close();
    }
    expect(await sql(url, "SELECT * FROM public.runs")).toEqual([]);
  });

  it("the pool never opens more connections than pool_max, however many calls wait", async () => {
    const url = await cluster.createDatabase();
    const s = await openStores(`${url}?pool_max=2`);
    try {
      const wf = buildWorkflow({ nodes: [{ id: "start", type: "start", variables: [] }], edges: [] });
      await Promise.all(
        Array.from({ length: 60 }, (_, i) =>
          s.runs.createRun({ id: `r${i}`, workflow: wf, inputs: {}, status: "running", createdAt: i, updatedAt: i }),
        ),
      );
      const [{ n } = { n: -1 }] = await sql<{ n: number }>(
        url,
        "SELECT count(*)::int AS n FROM pg_stat_activity WHERE application_name = 'weft' AND datname = current_database()",
      );
      expect(n).toBeGreaterThan(0);
      expect(n).toBeLessThanOrEqual(2);
      expect(await s.runs.listRuns({ limit: 100 })).toHaveLength(60);
    } finally {
      await s.close();
    }
  });

  it("typed errors: a missing database, a value PostgreSQL cannot hold, a server shut down under an open store", async () => {
    await expect(openStores(cluster.url("no_such_db"))).rejects.toMatchObject({
      code: "store.cannot_open",
      constructor: StoreOpenError,
      message: expect.stringContaining("no_such_db: the database does not exist"),
    });
    const url = await cluster.createDatabase();
    const s = await openStores(url);
    try {
      const wf = buildWorkflow({ nodes: [{ id: "start", type: "start", variables: [] }], edges: [] });
      await expect(
        s.runs.createRun({
          id: "nul\u0000id",
          workflow: wf,
          inputs: {},
          status: "running",
          createdAt: 1,
          updatedAt: 1,
        }),
      ).rejects.toMatchObject({ code: "store.invalid_value", details: { pgCode: "22021" } });
      // Every connection of this store is ended by the server, as in a restart or failover.
      await sql(url, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'weft'");
      await new Promise((r) => setTimeout(r, 200));
      // The pool replaces the dead connections: the store keeps working.
      expect(await s.runs.getRun("nope")).toBeUndefined();
    } finally {
      await s.close();
    }
  });

  it("the CLI runs, lists and traces on postgres:// like on a file, and refuses a bad one with its code", async () => {
    const url = await cluster.createDatabase();
    const wf = join(dir, "wf.yml");
    writeFileSync(
      wf,
      `${JSON.stringify(
        buildWorkflow({
          nodes: [
            { id: "start", type: "start", variables: [{ variable: "x", type: "text-input" }] },
            tpl("t", "hello {{ x }}", { x: ["start", "x"] }),
            { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["t", "output"] }] },
          ],
          edges: [
            ["start", "t"],
            ["t", "end"],
          ],
        }),
      )}\n`,
    );
    const weft = (...args: string[]) =>
      spawnSync(bin, args, {
        cwd: dir,
        encoding: "utf8",
        timeout: 120_000,
        env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "WEFT_CONFIG")),
      });
    const ran = weft("run", wf, "--input", "x=pg", "--db", url, "--json");
    expect(ran.status, ran.stderr).toBe(0);
    const { runId, outputs } = JSON.parse(ran.stdout);
    expect(outputs).toEqual({ out: "hello pg" });
    const listed = weft("runs", "--db", url, "--json");
    expect(JSON.parse(listed.stdout).runs.map((r: { id: string }) => r.id)).toEqual([runId]);
    const traced = weft("trace", runId, "--db", url, "--json");
    expect(JSON.parse(traced.stdout).trace.map((t: { nodeId: string }) => t.nodeId)).toEqual(["start", "t", "end"]);
    expect(weft("resume", runId, "--db", url).stderr).toMatch(/^error run\.finished: /);
    // A run interrupted after its start node: resume continues it from that commit.
    const stores = await openStores(url);
    const { workflow } = (await stores.runs.getRun(runId))!;
    const now = Date.now();
    await stores.runs.createRun({
      id: "cut",
      workflow,
      inputs: { x: "again" },
      status: "interrupted",
      createdAt: now,
      updatedAt: now,
    });
    await stores.runs.commitNode("cut", {
      key: "start",
      nodeId: "start",
      status: "succeeded",
      outputs: { x: "again" },
    });
    await stores.close();
    const resumed = weft("resume", "cut", "--db", url, "--json", "--trace");
    expect(resumed.status, resumed.stderr).toBe(0);
    const r = JSON.parse(resumed.stdout);
    expect(r.outputs).toEqual({ out: "hello again" });
    expect(r.trace.map((t: { nodeId: string }) => t.nodeId)).toEqual(["t", "end"]);

    const missing = weft("runs", "--db", cluster.url("nope_db"));
    expect(missing.status).toBe(2);
    expect(missing.stderr).toMatch(
      /^error store\.cannot_open: postgres:\/\/weft@127\.0\.0\.1:\d+\/nope_db: the database does not exist/,
    );
    expect(missing.stderr).not.toMatch(/\n\s+at /);
  }, 120_000); // five CLI processes, each starting cold: slow on a loaded 2-core machine
});
