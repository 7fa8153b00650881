/**
 * `weft apps draft` and `weft apps publish` as a user runs them, on a SQLite file: a draft with errors is saved
 * and cannot be published (exit 1, typed code); a stale revision is refused; publishing the fixed draft and
 * rolling back change what the app's end users run.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import type { Workflow } from "../../src/ir/workflow.js";
import { openStores } from "../../src/store/open.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { tempDir } from "../support/per-file.js";
import { cleanEnv, weftCli } from "../support/weft-bin.js";

const dir = tempDir("cli-drafts");
const db = join(dir, "weft.db");
const weft = weftCli({ cwd: dir, env: cleanEnv(), input: "", tail: ["--db", db] });

const saying = (words: string, from = "begin"): Workflow => ({
  ...buildWorkflow({
    nodes: [
      {
        id: "begin",
        type: "start",
        variables: [{ variable: "who", label: "Who", type: "text-input", required: true }],
      },
      tpl("say", `${words} {{ who }}`, { who: [from, "who"] }),
      {
        id: "end",
        type: "end",
        outputs: [{ variable: "said", value_selector: ["say", "output"], value_type: "string" }],
      },
    ],
    edges: [
      ["begin", "say"],
      ["say", "end"],
    ],
  }),
  name: "greeter",
});

function file(name: string, content: unknown): string {
  const p = join(dir, name);
  writeFileSync(p, typeof content === "string" ? content : JSON.stringify(content));
  return p;
}

async function published(appId: string): Promise<string | undefined> {
  const s = await openStores(db);
  try {
    return JSON.stringify((await s.apps.published(appId))?.workflow);
  } finally {
    await s.close();
  }
}

// Each test spawns the CLI up to eight times, one after another; a loaded 2-core machine takes seconds per start,
// so the file's budget is the sum of its processes' (each capped at 60 s), not vitest's 30 s default.
describe("weft apps draft / publish", { timeout: 240_000 }, () => {
  it("saves a draft with errors, refuses to publish it, publishes the fixed one, rolls back", async () => {
    const imported = weft(["apps", "import", file("hello.json", saying("hello")), "--json"]);
    expect(imported.code, imported.err).toBe(0);
    const { app, published: wasPublished } = JSON.parse(imported.out);
    expect(wasPublished).toBe(true);

    const bad = weft(["apps", "draft", app.id, file("broken.json", saying("broken", "nowhere"))]);
    expect(bad.code, bad.err).toBe(0);
    expect(bad.out).toMatch(/revision 2, \d+ error\(s\) to fix before publishing/);
    expect(bad.err).toContain("nowhere");

    const refused = weft(["apps", "publish", app.id]);
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("error publish.invalid");
    expect(await published(app.id)).toContain("hello {{ who }}");

    const stale = weft(["apps", "draft", app.id, file("fixed.json", saying("welcome")), "--revision", "1"]);
    expect(stale.code).toBe(1);
    expect(stale.err).toContain("error draft.stale");
    expect(stale.err).toContain("the current draft is revision 2");

    expect(weft(["apps", "draft", app.id, join(dir, "fixed.json"), "--revision", "2"]).code).toBe(0);
    const pub = weft(["apps", "publish", app.id, "--json"]);
    expect(pub.code, pub.err).toBe(0);
    expect(JSON.parse(pub.out)).toMatchObject({ published: 2, created: true });
    expect(await published(app.id)).toContain("welcome {{ who }}");

    const back = weft(["apps", "publish", app.id, "--to", "1"]);
    expect(back.code, back.err).toBe(0);
    expect(back.out).toContain("published");
    expect(await published(app.id)).toContain("hello {{ who }}");
    expect(weft(["apps", "list"]).out).toContain("v2 (published v1)");
  });

  it("bad input: an unknown app, a file that is not a workflow, a bad revision — typed errors, nothing saved", async () => {
    const { app } = JSON.parse(weft(["apps", "import", file("hi.json", saying("hi")), "--json"]).out);
    const unknown = weft(["apps", "draft", "NOPE", join(dir, "hi.json")]);
    expect(unknown.code).toBe(1);
    expect(unknown.err).toContain("error app.not_found");
    const garbage = weft(["apps", "draft", app.id, file("garbage.json", { nodes: "none" })]);
    expect(garbage.code).not.toBe(0);
    expect(garbage.err).toMatch(/^error \S+: /m);
    expect(garbage.err).not.toContain("    at ");
    const rev = weft(["apps", "draft", app.id, join(dir, "hi.json"), "--revision", "x"]);
    expect(rev.code).toBe(2);
    expect(rev.err).toContain("error usage.revision");
    expect(weft(["apps", "publish", "NOPE"]).err).toContain("error app.not_found");
    const s = await openStores(db);
    try {
      expect((await s.apps.draft(app.id))?.revision).toBe(1);
    } finally {
      await s.close();
    }
  });

  it("publishing an app that has no draft (its row gone) is publish.no_draft, exit 1, and the published version stays", async () => {
    const { app } = JSON.parse(weft(["apps", "import", file("nodraft.json", saying("kept")), "--json"]).out);
    const sqlite = new Database(db);
    try {
      expect(sqlite.prepare("DELETE FROM app_drafts WHERE app_id = ?").run(app.id).changes).toBe(1);
    } finally {
      sqlite.close();
    }
    const r = weft(["apps", "publish", app.id]);
    expect(r.code).toBe(1);
    expect(r.err).toContain("error publish.no_draft");
    expect(r.err).toContain(app.id);
    expect(r.err).not.toContain("    at ");
    expect(await published(app.id)).toContain("kept {{ who }}");
  }, 120_000);

  it("an import with errors stays an unpublished draft, and `weft mcp serve` refuses it by name", () => {
    const r = weft(["apps", "import", file("bad-import.json", saying("x", "nowhere"))]);
    expect(r.code, r.err).toBe(0);
    expect(r.out).toContain("saved as a draft, not published");
    const id = r.out.trim().split("\n").at(-1)!;
    const mcp = weft(["mcp", "serve", id]);
    expect(mcp.code).toBe(1);
    expect(mcp.err).toContain("error app.not_published");
  });
});

// `weft apps import` once lacked the node types and reported every valid file as broken.
describe("weft apps import of a Dify file", { timeout: 120_000 }, () => {
  it("reports a valid Dify export valid and publishes it", () => {
    const example = join(import.meta.dirname, "../../examples/word-stats.yml");
    const r = weft(["apps", "import", example, "--json"]);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out);
    expect(out.published).toBe(true);
    expect((out.diagnostics ?? []).filter((d: { severity: string }) => d.severity === "error")).toEqual([]);
  });
});
