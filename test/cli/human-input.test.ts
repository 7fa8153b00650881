/**
 * Human input from the command line on a Dify export: `weft run` pauses with the form printed, `weft runs`
 * lists the run as paused, `weft resume RUN --input k=v --action A` answers and completes it; a wrong action
 * is one line naming the actions, and the run stays paused.
 */
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../support/per-file.js";
import { cleanEnv, weftCli } from "../support/weft-bin.js";

const root = resolve(import.meta.dirname, "../..");
const fixture = join(root, "test/fixtures/dify/human-input-approval.yml");
const dir = tempDir("cli-hi");
const db = join(dir, "weft.db");
const weft = weftCli({ cwd: dir, env: cleanEnv(), timeout: 120_000, tail: ["--db", db] });

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
