/**
 * Issue 28 item 2 from the command line: `weft kb add` on a 300 MB-run DOCX (a few hundred KB on
 * disk) used to end in a V8 fatal out-of-memory (exit 134). Now it is a typed one-line error, exit 1,
 * and the next file in the same command is never half-added.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../support/per-file.js";
import { cleanEnv, weftCli } from "../support/weft-bin.js";
import { docxBomb, pdfBomb } from "../tools/bombs.js";
import { makeDocx } from "../tools/samples.js";

const TIMEOUT = 180_000;
const dir = tempDir("cli-kb-bombs");
const config = join(dir, "weft.config.json");
const weft = weftCli({ cwd: dir, env: cleanEnv({ keepApiKeys: true }), timeout: 120_000, tail: ["--config", config] });

beforeAll(async () => {
  writeFileSync(config, JSON.stringify({ db: join(dir, "weft.db"), files: { dir: join(dir, "files") } }));
  writeFileSync(join(dir, "bomb.docx"), await docxBomb(300));
  writeFileSync(join(dir, "zeros.pdf"), await pdfBomb(1024));
  writeFileSync(join(dir, "report.docx"), await makeDocx());
  expect(weft(["kb", "create", "Bombs", "--id", "bombs"]).code).toBe(0);
}, TIMEOUT);

describe("weft kb add on document bombs", () => {
  it("a DOCX bomb is a typed one-line error with exit 1, not a crash (exit 134)", { timeout: TIMEOUT }, () => {
    const r = weft(["kb", "add", "bombs", "bomb.docx"]);
    expect(r.signal).toBeNull();
    expect(r.code).toBe(1);
    expect(r.err.trim().split("\n")).toHaveLength(1);
    expect(r.err).toMatch(
      /^error document\.too_large: file "bomb\.docx": DOCX file: the archive (declares|inflates to)/,
    );
  });

  it("a PDF bomb too; the knowledge base holds nothing half-added and still takes a real document", {
    timeout: TIMEOUT,
  }, () => {
    const r = weft(["kb", "add", "bombs", "zeros.pdf"]);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/^error document\.too_large: file "zeros\.pdf"/);
    expect(weft(["kb", "list", "bombs"]).out).toContain("no documents");
    const ok = weft(["kb", "add", "bombs", "report.docx"]);
    expect(ok.code).toBe(0);
    expect(ok.out).toMatch(/report\.docx\t\d+ chunks/);
  });
});
