/**
 * Human input from the command line on a Dify export: `weft run` pauses with the form printed, `weft runs`
 * lists the run as paused, `weft resume RUN --input k=v --action A` answers and completes it; a wrong action
 * is one line naming the actions, and the run stays paused.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const bin = join(root, "bin/weft");
const fixture = join(root, "test/fixtures/dify/human-input-approval.yml");
const dir = mkdtempSync(join(tmpdir(), "weft-cli-hi-"));
const db = join(dir, "weft.db");
const env = Object.fromEntries(
  Object.entries(process.env).filter(([k]) => !k.startsWith("WEFT_") && !k.endsWith("_API_KEY")),
);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function weft(args: string[]) {
  const r = spawnSync(bin, [...args, "--db", db], { cwd: dir, env, encoding: "utf8", timeout: 120_000 });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

describe("weft run / runs / resume with a human-input form", () => {
  it("pauses, lists the run as paused, and resumes with the answer", () => {
    const run = weft(["run", fixture, "--input", "draft=Hello world", "--json"]);
    expect(run.code).toBe(0);
    const paused = JSON.parse(run.out);
    expect(paused.status).toBe("paused");
    expect(paused.paused[0].form.content).toContain("Hello world");
    const runId = paused.runId as string;

    const listed = weft(["runs"]);
    expect(listed.out).toMatch(new RegExp(`${runId}.*paused`));

    const wrong = weft(["resume", runId, "--input", "comment=ok", "--action", "publish"]);
    expect(wrong.code).not.toBe(0);
    expect(wrong.err.trim().split("\n")).toHaveLength(1);
    expect(wrong.err).toMatch(/form\.invalid_action.*approve, reject/);

    const done = weft(["resume", runId, "--input", "comment=Looks good", "--action", "approve", "--json"]);
    expect(done.code).toBe(0);
    const finished = JSON.parse(done.out);
    expect(finished.status).toBe("succeeded");
    expect(JSON.stringify(finished.outputs)).toContain("approved: Looks good");
  }, 180_000);
});
