/**
 * `weft tests` and the publish gate as a user runs them (bin/weft on the built JavaScript, a SQLite file, the
 * loopback replay model answering each LLM node with an echo of its prompt): a case from a run passes on the
 * version it came from and fails on a draft that changes one node, naming the case, node and values;
 * `weft apps publish` is refused while a required test fails and publishes with a recorded override; the side
 * file travels to another app; the replay cache sends only the changed node's request to the model.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { cliActorLabel } from "../../src/cli/audit.js";
import { openStores } from "../../src/store/open.js";
import { tempDir } from "../support/per-file.js";
import { type ReplayServer, reply, startReplayServer } from "../support/replay-server.js";
import { cleanEnv, runWeftAsync } from "../support/weft-bin.js";

const FIXTURE = join(import.meta.dirname, "../fixtures/apptests/two-llm.yml");
const dir = tempDir("apptests-cli");
const db = join(dir, "weft.db");
const config = join(dir, "weft.config.json");
let server: ReplayServer;

const lastUser = (body: any): string => {
  const msgs = Array.isArray(body?.messages) ? body.messages : [];
  const u = [...msgs].reverse().find((m: any) => m.role === "user");
  return typeof u?.content === "string" ? u.content : JSON.stringify(u?.content);
};

beforeAll(async () => {
  server = await startReplayServer();
  // Deterministic and request-dependent: a changed prompt gives a changed answer.
  server.when(
    (r) => r.api === "openai-chat",
    (r) => reply.text(`echo(${lastUser(r.body)})`),
    {
      times: Number.POSITIVE_INFINITY,
    },
  );
  writeFileSync(
    config,
    JSON.stringify({
      llm: {
        endpoints: { replay: { provider: "openai-compatible", baseURL: server.openaiBaseURL } },
        default: "replay",
        providers: { openai: "replay" },
        retry: { maxRetries: 0 },
      },
      files: { dir: join(dir, "files") },
      db,
    }),
  );
});
afterAll(async () => {
  await server?.close();
});

const weft = (args: string[]) =>
  runWeftAsync(args, { cwd: dir, env: cleanEnv(), timeout: 120_000, tail: ["--config", config] });

function retitled(titlePrompt: string): string {
  const p = join(dir, `draft-${Math.random().toString(36).slice(2)}.yml`);
  writeFileSync(p, readFileSync(FIXTURE, "utf8").replace("Title for: {{#summarise.text#}}", titlePrompt));
  return p;
}

// Each bin/weft start costs a few seconds on a loaded 2-core machine; a test runs up to nine of them.
describe("weft tests (CLI)", { timeout: 240_000 }, () => {
  let appId = "";
  let caseId = "";

  it("adds a case from a run; it passes on the app's version and fails on a draft that changes a node", async () => {
    const imported = await weft(["apps", "import", FIXTURE, "--json"]);
    expect(imported.code, imported.err).toBe(0);
    appId = JSON.parse(imported.out).app.id;
    const run = await weft(["run", FIXTURE, "--input", "text=Refunds take two weeks", "--db", db, "--json"]);
    expect(run.code, run.err).toBe(0);
    const { runId, outputs } = JSON.parse(run.out);
    expect(outputs.title).toBe("echo(Title for: echo(Summarise: Refunds take two weeks))");

    const added = await weft(["tests", "add", appId, "--from-run", runId, "--name", "refund", "--json"]);
    expect(added.code, added.err).toBe(0);
    const c = JSON.parse(added.out);
    caseId = c.id;
    expect(c.inputs).toEqual({ text: "Refunds take two weeks" });
    expect(c.expect).toEqual([
      { output: "summary", check: "exact", value: "echo(Summarise: Refunds take two weeks)" },
      { output: "title", check: "exact", value: outputs.title },
      { output: "words", check: "exact", value: 4 },
    ]);
    const listed = await weft(["tests", "list", appId]);
    expect(listed.out).toContain(`${caseId}  refund  (summary:exact, title:exact, words:exact)`);

    const ok = await weft(["tests", "run", appId, "--json"]);
    expect(ok.code, ok.err).toBe(0);
    expect(JSON.parse(ok.out)).toMatchObject({ passed: 1, failed: 0, target: { kind: "version", version: 1 } });

    const draft = await weft(["apps", "draft", appId, retitled("Headline for: {{#summarise.text#}}")]);
    expect(draft.code, draft.err).toBe(0);
    const bad = await weft(["tests", "run", appId, "--draft", "--json"]);
    expect(bad.code).toBe(1);
    const report = JSON.parse(bad.out);
    expect(report).toMatchObject({ passed: 0, failed: 1, target: { kind: "draft", revision: 2 } });
    expect(report.cases[0].failure).toMatchObject({
      kind: "check",
      nodeId: "title",
      nodeTitle: "Title",
      output: "title",
      got: JSON.stringify("echo(Headline for: echo(Summarise: Refunds take two weeks))"),
    });
    const text = await weft(["tests", "run", appId, "--draft", "--report", join(dir, "report")]);
    expect(text.code).toBe(1);
    expect(text.out).toContain("FAIL  case 'refund' fails at node 'Title': title: expected \"echo(Title for:");
    expect(readFileSync(join(dir, "report", "report.md"), "utf8")).toContain("| refund | FAIL | 0/1 |");
    expect(JSON.parse(readFileSync(join(dir, "report", "report.json"), "utf8")).failed).toBe(1);
  });

  it("weft apps publish is refused while a required test fails, and publishes with an owner's recorded reason", async () => {
    const req = await weft(["tests", "require", appId]);
    expect(req.code, req.err).toBe(0);
    const refused = await weft(["apps", "publish", appId]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("error publish.tests_failed: publishing refused: 1 of 1 required test case(s) fail");
    expect(refused.err).toContain("case 'refund' fails at node 'Title'");
    const s = await openStores(db);
    try {
      expect((await s.apps.getApp(appId))?.publishedVersion).toBe(1);
    } finally {
      await s.close();
    }
    const over = await weft(["apps", "publish", appId, "--override-tests", "new title wording is intended", "--json"]);
    expect(over.code, over.err).toBe(0);
    const out = JSON.parse(over.out);
    expect(out.published).toBe(2);
    expect(out.tests).toMatchObject({ required: true, passed: 0, failed: 1, failing: ["refund"] });
    const s2 = await openStores(db);
    try {
      expect(await s2.appTests.overrides(appId)).toMatchObject([
        { appId, version: 2, reason: "new title wording is intended", by: cliActorLabel(), failing: ["refund"] },
      ]);
    } finally {
      await s2.close();
    }
  });

  it("the side file carries cases and settings to another app; the case passes there on the same workflow", async () => {
    const side = join(dir, "two-llm.tests.yml");
    const exported = await weft(["tests", "export", appId, "-o", side]);
    expect(exported.code, exported.err).toBe(0);
    expect(readFileSync(side, "utf8")).toContain("weft_tests: 1");
    const other = JSON.parse((await weft(["apps", "import", FIXTURE, "--json"])).out).app.id;
    const imported = await weft(["tests", "import", other, side, "--json"]);
    expect(imported.code, imported.err).toBe(0);
    expect(JSON.parse(imported.out)).toEqual({ added: 1, replaced: 0 });
    const ran = await weft(["tests", "run", other, "--json"]);
    expect(ran.code, ran.err).toBe(0);
    expect(JSON.parse(ran.out)).toMatchObject({ passed: 1, failed: 0 });
    const again = await weft(["tests", "import", other, side, "--json"]);
    expect(JSON.parse(again.out)).toEqual({ added: 0, replaced: 1 });
    // Regression on import: the Dify YAML with its side file beside it imports the cases and runs them.
    const dsl = join(dir, "two-llm.yml");
    writeFileSync(dsl, readFileSync(FIXTURE, "utf8"));
    const withTests = await weft(["apps", "import", dsl]);
    expect(withTests.code, withTests.err).toBe(0);
    const lines = withTests.out.trim().split("\n");
    expect(lines.at(-2)).toBe(`1 test case(s) from ${side}; tests: 1/1 pass on version 1`);
    // The last line is still the new app's id: its cases are the side file's.
    expect((await weft(["tests", "list", lines.at(-1)!])).out).toContain("refund");
    const changed = await weft([
      "apps",
      "import",
      retitled("Headline for: {{#summarise.text#}}"),
      "--tests",
      side,
      "--json",
    ]);
    expect(changed.code).toBe(1);
    expect(JSON.parse(changed.out).tests).toMatchObject({ added: 1, passed: 0, failed: 1 });
    expect(JSON.parse(changed.out).tests.line).toMatch(
      /^tests: 0\/1 pass on version 1: case 'refund' fails at node 'Title': title: expected/,
    );
    writeFileSync(
      join(dir, "bad.tests.yml"),
      "weft_tests: 1\ncases:\n  - name: x\n    inputs: {}\n    expect: [{output: a, check: regex, pattern: '(('}]\n",
    );
    const bad = await weft(["tests", "import", other, join(dir, "bad.tests.yml")]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain('error tests.invalid_case: case "x": expect[0] (a): pattern is not a regular expression');
  });

  it("with --replay only the node whose request changed calls the model (the replay server counts requests)", async () => {
    const calls = () => server.requests.length;
    const first = await weft(["tests", "run", appId, "--draft", "--replay", "--json"]);
    expect(JSON.parse(first.out).modelCalls).toEqual({ cached: 0, live: 2 });
    let before = calls();
    const second = await weft(["tests", "run", appId, "--draft", "--replay", "--json"]);
    expect(JSON.parse(second.out).modelCalls).toEqual({ cached: 2, live: 0 });
    expect(calls() - before).toBe(0);
    // One node changed: the summary's request is the same, the title's is new.
    expect((await weft(["apps", "draft", appId, retitled("Name this: {{#summarise.text#}}")])).code).toBe(0);
    before = calls();
    const third = await weft(["tests", "run", appId, "--draft", "--replay", "--json"]);
    const r = JSON.parse(third.out);
    expect(r.modelCalls).toEqual({ cached: 1, live: 1 });
    expect(calls() - before).toBe(1);
    expect(lastUser(server.requests.at(-1)!.body)).toBe("Name this: echo(Summarise: Refunds take two weeks)");
    expect(r.cases[0].failure.got).toContain("echo(Name this:");
  });
});
