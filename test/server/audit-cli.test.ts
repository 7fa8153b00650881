// `weft audit [--since] [--json]` as an operator runs it: changes made through a running server (a signed-in
// owner, a workspace key) and through the CLI (`weft apps publish`), then the built bin/weft reads the log from
// the same database — every change with who did it, the newest first; --since keeps only the later ones; a bad
// --since is a usage error (exit 2) naming the flag.
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type RunningServer, startServer } from "../../src/server/index.js";
import { DEFAULT_WORKSPACE_ID } from "../../src/store/teams.js";
import { tempDir } from "../support/per-file.js";
import { memberSession } from "../support/sessions.js";
import { WEFT_BIN, weftOut } from "../support/weft-bin.js";

const dir = tempDir("audit-cli");
const db = join(dir, "weft.db");
const weft = (...args: string[]) => weftOut(args, { cwd: dir, tail: ["--db", db] });
let s: RunningServer;
let appId = "";
let between = 0;
let keyId = "";
let keySecret = "";

interface Entry {
  at: number;
  workspaceId: string;
  actorKind: string;
  actorLabel: string;
  action: string;
  target?: string;
  detail?: Record<string, unknown>;
}

/** Until the millisecond clock has moved past `t` (at most a millisecond or two). */
async function clockPast(t: number): Promise<void> {
  while (Date.now() <= t) await new Promise((r) => setImmediate(r));
}

beforeAll(async () => {
  s = await startServer({ db, port: 0, schedules: false });
  const owner = await memberSession(s.deps.stores, s.url, "olga@team.test", "owner");
  const key = await s.deps.apps.createKey("deploy bot", { workspaceId: DEFAULT_WORKSPACE_ID, role: "editor" });
  keyId = key.id;
  keySecret = key.key;
  const created = await fetch(`${s.url}/api/apps`, {
    method: "POST",
    headers: owner.headers(true),
    body: JSON.stringify({ name: "audited" }),
  });
  expect(created.status).toBe(201);
  appId = ((await created.json()) as { app: { id: string } }).app.id;
  const [first] = await s.deps.stores.audit.list({});
  // The clock moves past the first entry, so a --since between the two changes splits them.
  await clockPast(first!.at);
  between = Date.now();
  await clockPast(between);
  const invited = await fetch(`${s.url}/api/members/invites`, {
    method: "POST",
    headers: owner.headers(true),
    body: JSON.stringify({ role: "viewer" }),
  });
  expect(invited.status).toBe(201);
  const yaml = readFileSync(join(import.meta.dirname, "../../examples/word-stats.yml"), "utf8");
  const imported = await fetch(`${s.url}/api/apps/import`, {
    method: "POST",
    headers: { authorization: `Bearer ${key.key}`, "content-type": "text/yaml" },
    body: yaml,
  });
  expect(imported.status).toBe(201);
}, 120_000);
afterAll(async () => {
  await s?.close();
});

describe("weft audit", () => {
  it("lists every change, newest first, with who made it (a user, a key, the CLI) and never a secret", {
    timeout: 120_000,
  }, () => {
    weft("apps", "publish", appId);
    const entries = JSON.parse(weft("audit", "--json")) as Entry[];
    expect(entries.map((e) => [e.actorKind, e.actorLabel, e.action])).toEqual([
      ["cli", expect.stringMatching(/^cli /), "apps publish"],
      ["key", "key deploy bot", "POST /api/apps/import"],
      ["session", "olga@team.test", "POST /api/members/invites"],
      ["session", "olga@team.test", "POST /api/apps"],
    ]);
    expect(entries.every((e) => e.workspaceId === DEFAULT_WORKSPACE_ID)).toBe(true);
    expect(entries[0]!.target).toBe(`app:${appId}`);
    expect(entries[1]!.actorKind === "key" && JSON.stringify(entries[1])).toContain(keyId);
    const text = weft("audit");
    expect(JSON.stringify(entries)).not.toContain(keySecret);
    expect(text).not.toContain(keySecret);
    const lines = text.trim().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[3]).toMatch(
      /^\d{4}-\d\d-\d\dT[\d:.]+Z {2}default {2}olga@team\.test \(session [\w-]+\) {2}POST \/api\/apps/,
    );
  });

  it("--since keeps what came after (an ISO time or a duration); none is said as such", { timeout: 120_000 }, () => {
    const later = JSON.parse(weft("audit", "--since", new Date(between).toISOString(), "--json")) as Entry[];
    expect(later.map((e) => e.action)).toEqual(["apps publish", "POST /api/apps/import", "POST /api/members/invites"]);
    expect((JSON.parse(weft("audit", "--since", "1h", "--json")) as Entry[]).length).toBe(4);
    expect(weft("audit", "--since", new Date(Date.now() + 3600_000).toISOString())).toBe("no audit entries\n");
  });

  it("refuses a --since it cannot read: exit 2, the flag named", { timeout: 60_000 }, () => {
    const r = spawnSync(WEFT_BIN, ["audit", "--since", "last tuesday", "--db", db], { cwd: dir, encoding: "utf8" });
    expect(r.status).toBe(2);
    expect(r.stderr).toContain("usage.since");
    expect(r.stderr).toContain("--since");
    expect(r.stdout).toBe("");
  });
});
