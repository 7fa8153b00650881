import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const ROOT = resolve(import.meta.dirname, "../..");
const TSX = join(ROOT, "node_modules/tsx/dist/cli.mjs");
const dir = mkdtempSync(join(tmpdir(), "weft-cli-server-"));
const db = join(dir, "weft.db");
const weft = (...args: string[]) =>
  execFileSync(process.execPath, [TSX, join(ROOT, "src/cli/main.ts"), ...args], { cwd: dir, encoding: "utf8" });
let child: ChildProcess | undefined;

afterAll(() => {
  if (child?.pid && child.exitCode === null) child.kill("SIGTERM");
  rmSync(dir, { recursive: true, force: true });
});

describe("weft keys and weft serve", () => {
  it("creates, lists and revokes keys; only hashes are stored", { timeout: 180_000 }, () => {
    const created = JSON.parse(weft("keys", "create", "--db", db, "--name", "ci", "--json")) as {
      id: string;
      key: string;
    };
    expect(created.key).toMatch(/^weft_/);
    const list = JSON.parse(weft("keys", "list", "--db", db, "--json")) as Array<{ id: string; name: string }>;
    expect(list.map((k) => [k.id, k.name])).toEqual([[created.id, "ci"]]);
    expect(JSON.stringify(list)).not.toContain(created.key);
    expect(weft("keys", "revoke", created.id, "--db", db)).toContain("revoked");
    expect(JSON.parse(weft("keys", "list", "--db", db, "--json"))).toEqual([]);
  });

  it("serves the sample app with the key it prints", async () => {
    child = spawn(
      process.execPath,
      [TSX, join(ROOT, "src/cli/main.ts"), "serve", "--port", "0", "--db", db, "--sample"],
      { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
    );
    let out = "";
    const ready = new Promise<void>((res, rej) => {
      child!.stdout!.on("data", (b) => {
        out += String(b);
        if (/serving on http/.test(out)) res();
      });
      child!.once("exit", (code) => rej(new Error(`weft serve exited with ${code}: ${out}`)));
    });
    await ready;
    const url = /serving on (http:\/\/\S+)/.exec(out)![1]!;
    const key = /API key: (\S+)/.exec(out)![1]!;
    expect((await fetch(`${url}/health`)).status).toBe(200);
    expect((await fetch(`${url}/api/apps`)).status).toBe(401);
    const apps = (await (await fetch(`${url}/api/apps`, { headers: { authorization: `Bearer ${key}` } })).json()) as {
      apps: Array<{ name: string }>;
    };
    expect(apps.apps.map((a) => a.name)).toEqual(["Word statistics"]);
    const exited = new Promise((r) => child!.once("exit", r));
    child.kill("SIGTERM");
    await exited;
  }, 180_000);
});
