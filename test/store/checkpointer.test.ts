import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(import.meta.dirname, "../..");
const tsx = pathToFileURL(join(root, "node_modules/tsx/dist/esm/index.mjs")).href;
const src = (p: string) => JSON.stringify(pathToFileURL(join(root, "src", p)).href);

describe("the checkpointer's thread", () => {
  // An idle checkpointer is unref'd so it never keeps a process alive; its close waited for the thread's exit
  // without holding the loop, so a process with nothing else to do (a worker stopping, its Redis connections
  // closed) ended inside `close()`: what followed it (the worker's "stopped" line, its exit code) never ran.
  it("closes in a process with nothing else keeping it alive, and what follows the close runs", () => {
    const dir = mkdtempSync(join(tmpdir(), "weft-checkpointer-"));
    const db = join(dir, "runs.db");
    const script = `
      import { openSqlite } from ${src("store/sqlite/database.ts")};
      import { Checkpointer } from ${src("store/sqlite/checkpointer.ts")};
      const db = openSqlite(process.argv[2]);
      db.exec("CREATE TABLE t (x)");
      db.exec("INSERT INTO t VALUES (1)");
      const checkpointer = new Checkpointer(process.argv[2], 2);
      await checkpointer.run();
      await checkpointer.close();
      db.close();
      process.stdout.write("closed " + checkpointer.failures + "\\n");
    `;
    // A file, not \`-e\`: the thread would inherit \`--input-type=module\` and its CommonJS source would not load.
    writeFileSync(join(dir, "child.mts"), script);
    const r = spawnSync(process.execPath, ["--import", tsx, join(dir, "child.mts"), db], {
      encoding: "utf8",
      timeout: 60_000,
    });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe("closed 0\n");
    expect(r.status).toBe(0);
  });
});
