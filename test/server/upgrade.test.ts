// Issue 31, Must show: "a database written by the previous release opens, apps and keys intact". The fixtures
// were written by release 791ac34 (before audit, key roles and invites) through its own CLI and HTTP API
// (test/fixtures/upgrade/make-fixtures.ts says how): a SQLite file and a PostgreSQL dump. Today's server opens
// each; apps, versions, the draft, the run and the keys are there, the old workspace key acts as owner through
// the API, the app key still serves /v1, and all of it belongs to the default workspace owned by the first user.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";
import { type RunningServer, startServer } from "../../src/server/index.js";
import { DEFAULT_WORKSPACE_ID } from "../../src/store/teams.js";
import { hasPostgres, type PgCluster, postgresBinDir, startPostgres } from "../support/postgres.js";

const FIXTURES = join(import.meta.dirname, "../fixtures/upgrade");

interface Facts {
  users: Array<{ id: string; email: string; role: string }>;
  key: { id: string; key: string; name: string };
  appKey: { key: string; appId: string };
  apps: Array<{ id: string; name: string; published: number; draftDescription?: string }>;
  run: { id: string; appId: string; status: string };
}
const all = JSON.parse(readFileSync(join(FIXTURES, "v791ac34.json"), "utf8")) as {
  release: string;
  sqlite: Facts;
  postgres: Facts;
};

/** Today's server on a database the previous release wrote; `facts` is what that release reported making. */
function upgradeSuite(open: () => Promise<{ db: string; facts: Facts; done(): Promise<void> }>) {
  let s: RunningServer;
  let facts: Facts;
  let done: () => Promise<void>;
  const call = (path: string, init: { method?: string; json?: unknown; key?: string } = {}) =>
    fetch(`${s.url}${path}`, {
      method: init.method ?? (init.json === undefined ? "GET" : "POST"),
      headers: { authorization: `Bearer ${init.key ?? facts.key.key}`, "content-type": "application/json" },
      body: init.json === undefined ? undefined : JSON.stringify(init.json),
    });
  const body = async (r: Response) => {
    const text = await r.text();
    if (!r.ok) throw new Error(`${r.status} ${text}`);
    return JSON.parse(text) as Record<string, any>;
  };

  beforeAll(async () => {
    const o = await open();
    facts = o.facts;
    done = o.done;
    // The code sandbox `weft serve` gives runs: the old app's code node runs again.
    s = await startServer({ db: o.db, port: 0, schedules: false, services: { sandbox: createSandbox() } });
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await done?.();
  });

  it("keeps the apps, their versions, the unpublished draft and the run", async () => {
    const { apps } = await body(await call("/api/apps"));
    expect(apps.map((a: { id: string; name: string }) => [a.id, a.name]).sort()).toEqual(
      facts.apps.map((a) => [a.id, a.name]).sort(),
    );
    const [wordStats] = facts.apps;
    const versions = await body(await call(`/api/apps/${wordStats!.id}/versions`));
    expect(JSON.stringify(versions)).toContain('"version":2');
    const app = await body(await call(`/api/apps/${wordStats!.id}`));
    expect(app.app.publishedVersion).toBe(wordStats!.published);
    const draft = await body(await call(`/api/apps/${wordStats!.id}/draft`));
    expect(draft.workflow.description).toBe(wordStats!.draftDescription);
    expect(draft.dirty).toBe(true);
    const run = await body(await call(`/api/runs/${facts.run.id}`));
    expect(run).toMatchObject({ status: "succeeded" });
    expect(facts.run.status).toBe("succeeded");
  });

  it("the old workspace key acts as owner of the default workspace: every right, through the API", async () => {
    const me = await body(await call("/api/auth/me"));
    expect(me).toMatchObject({ kind: "key", role: "owner", workspace: { id: DEFAULT_WORKSPACE_ID } });
    expect(me.permissions).toEqual(
      expect.arrayContaining([
        "app.edit",
        "app.publish",
        "app.delete",
        "members.manage",
        "members.owner",
        "audit.read",
      ]),
    );
    // Writes of each kind: edit (import), publish, members (an invitation), keys, and the audit log reads them back.
    const imported = await call("/api/apps/import", {
      json: { dsl: readFileSync(join(import.meta.dirname, "../../examples/word-stats.yml"), "utf8") },
    });
    expect(imported.status).toBe(201);
    const publish = await call(`/api/apps/${facts.apps[0]!.id}/publish`, { json: {} });
    expect(publish.status).toBe(200);
    expect((await call("/api/members/invites", { json: { role: "owner" } })).status).toBe(201);
    const keys = await body(await call("/api/keys"));
    expect(keys.keys).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: facts.key.id, role: "owner", workspaceId: DEFAULT_WORKSPACE_ID }),
      ]),
    );
    const audit = await body(await call("/api/audit"));
    expect(audit.entries.map((e: { actorId: string }) => e.actorId)).toContain(facts.key.id);
  });

  it("the old app key still serves its app on /v1", async () => {
    const info = await call("/v1/parameters", { key: facts.appKey.key });
    expect(info.status).toBe(200);
    const run = await body(
      await call("/v1/workflows/run", {
        key: facts.appKey.key,
        json: { inputs: { text: "one two three" }, response_mode: "blocking", user: "u" },
      }),
    );
    expect(run.data, JSON.stringify(run.data)).toMatchObject({ status: "succeeded" });
  });

  it("everything belongs to the default workspace, owned by the first user, who signs in as its owner", async () => {
    const { teams } = s.deps.stores;
    for (const a of facts.apps) expect(await teams.ownerOf("app", a.id)).toBe(DEFAULT_WORKSPACE_ID);
    const members = await teams.members(DEFAULT_WORKSPACE_ID);
    const [first, second] = facts.users;
    expect(members.map((m) => [m.userId, m.role]).sort()).toEqual(
      [
        [first!.id, "owner"],
        [second!.id, "editor"],
      ].sort(),
    );
    const login = await fetch(`${s.url}/api/auth/login`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ email: first!.email, password: "first owner's password" }),
    });
    expect(await body(login)).toMatchObject({ role: "owner", workspace: { id: DEFAULT_WORKSPACE_ID } });
  });
}

describe("upgrade from release 791ac34: SQLite", () => {
  upgradeSuite(async () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-upgrade-"));
    const db = join(dir, "old.db");
    copyFileSync(join(FIXTURES, "v791ac34.sqlite"), db);
    return { db, facts: all.sqlite, done: async () => rmSync(dir, { recursive: true, force: true }) };
  });
});

describe.skipIf(!hasPostgres)("upgrade from release 791ac34: PostgreSQL", () => {
  let pg: PgCluster | undefined;
  upgradeSuite(async () => {
    pg = await startPostgres();
    const db = await pg.createDatabase("old");
    // The previous release's dump, loaded as a restore would; any error in it stops the load.
    execFileSync(
      join(postgresBinDir()!, "psql"),
      ["--quiet", "-v", "ON_ERROR_STOP=1", "--dbname", db, "-f", join(FIXTURES, "v791ac34.pg.sql")],
      {
        stdio: ["ignore", "ignore", "pipe"],
      },
    );
    return { db, facts: all.postgres, done: async () => pg?.stop() };
  });
});
