// A test file's scratch directory, gone when the file's tests are done.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";

/** A fresh directory under the system's temp folder, named `weft-<what>-…`, removed after all the file's tests. */
export function tempDir(what: string): string {
  const dir = mkdtempSync(join(tmpdir(), `weft-${what}-`));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}
