/**
 * Issue 28 item 2 from the command line: `weft kb add` on a 300 MB-run DOCX (a few hundred KB on
 * disk) used to end in a V8 fatal out-of-memory (exit 134). Now it is a typed one-line error, exit 1,
 * and the next file in the same command is never half-added.
 */
import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { docxBomb, pdfBomb } from "../tools/bombs.js";
import { makeDocx } from "../tools/samples.js";

const TIMEOUT = 180_000;
const bin = join(resolve(import.meta.dirname, "../.."), "bin/weft");
const dir = mkdtempSync(join(tmpdir(), "weft-cli-kb-bombs-"));
const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("WEFT_")));
const config = join(dir, "weft.config.json");

function weft(args: string[]) {
  const r = spawnSync(bin, [...args, "--config", config], { cwd: dir, env, encoding: "utf8", timeout: 120_000 });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

beforeAll(async () => {
  writeFileSync(config, JSON.stringify({ db: join(dir, "weft.db"), files: { dir: join(dir, "files") } }));
  writeFileSync(join(dir, "bomb.docx"), await docxBomb(300));
  writeFileSync(join(dir, "zeros.pdf"), await pdfBomb(1024));
  writeFileSync(join(dir, "report.docx"), await makeDocx());
  expect(weft(["kb", "create", "Bombs", "--id", "bombs"]).code).toBe(0);
}, TIMEOUT);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

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
