import { randomBytes } from "node:crypto";
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REDACTED, redactorFor } from "../../src/engine/redact.js";
import { keyIdOf, open, seal } from "../../src/secrets/crypto.js";
import { KeyProvider, keyFilePath, parseKey } from "../../src/secrets/key.js";

const dir = mkdtempSync(join(tmpdir(), "weft-secret-key-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const key = (source = "test") => {
  const bytes = randomBytes(32);
  return { id: keyIdOf(bytes), bytes, source };
};

describe("sealing", () => {
  it("AES-256-GCM with a fresh IV per value: same clear text, different ciphertexts; opens back", () => {
    const k = key();
    const a = seal(k, "app", "API_KEY", "hunter2 ✓");
    const b = seal(k, "app", "API_KEY", "hunter2 ✓");
    expect(a.iv).not.toBe(b.iv);
    expect(a.data).not.toBe(b.data);
    expect(Buffer.from(a.iv, "base64")).toHaveLength(12);
    expect(Buffer.from(a.tag, "base64")).toHaveLength(16);
    expect(a.keyId).toBe(k.id);
    expect(open(k, "app", "API_KEY", a)).toBe("hunter2 ✓");
  });

  it("another key, a tampered value or a value moved to another variable does not open: secret.wrong_key", () => {
    const k = key("/etc/weft/key");
    const s = seal(k, "app", "API_KEY", "hunter2");
    expect(() => open(key(), "app", "API_KEY", s)).toThrow(expect.objectContaining({ code: "secret.wrong_key" }));
    // Same id claimed, other bytes: the tag check fails.
    expect(() => open({ ...key(), id: k.id }, "app", "API_KEY", s)).toThrow(/authentication failed/);
    const flipped = Buffer.from(s.data, "base64");
    flipped[0]! ^= 1;
    expect(() => open(k, "app", "API_KEY", { ...s, data: flipped.toString("base64") })).toThrow(
      /secret.wrong_key|authentication/,
    );
    expect(() => open(k, "app", "OTHER", s)).toThrow(expect.objectContaining({ code: "secret.wrong_key" }));
    expect(() => open(k, "app2", "API_KEY", s)).toThrow(/\/etc\/weft\/key/);
  });
});

describe("keys", () => {
  it("WEFT_SECRET_KEY: 64 hex digits or base64 of 32 bytes; anything else is secret.bad_key", () => {
    const bytes = randomBytes(32);
    expect(parseKey(bytes.toString("hex"), "WEFT_SECRET_KEY").bytes).toEqual(bytes);
    expect(parseKey(`${bytes.toString("base64")}\n`, "WEFT_SECRET_KEY").bytes).toEqual(bytes);
    for (const bad of ["", "short", randomBytes(16).toString("base64"), `${bytes.toString("hex")}00`, "!".repeat(44)])
      expect(() => parseKey(bad, "WEFT_SECRET_KEY")).toThrow(expect.objectContaining({ code: "secret.bad_key" }));
  });

  it("the key file is created on first use, owner-only, and read back the same; never created by `existing`", () => {
    const file = join(dir, "sub", "weft-secret.key");
    const p = new KeyProvider(file, undefined);
    expect(p.existing()).toBeUndefined();
    const k = p.get();
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(file, "utf8").trim(), "base64")).toEqual(k.bytes);
    expect(new KeyProvider(file, undefined).existing()?.id).toBe(k.id);
    expect(p.source).toBe(file);
  });

  it("a key file others can read is refused, naming the chmod", () => {
    const file = join(dir, "open.key");
    writeFileSync(file, randomBytes(32).toString("base64"));
    chmodSync(file, 0o644);
    expect(() => new KeyProvider(file, undefined).existing()).toThrow(
      expect.objectContaining({ code: "secret.key_file_open", message: expect.stringContaining(`chmod 600 ${file}`) }),
    );
  });

  it("WEFT_SECRET_KEY wins over the file; the file sits next to a SQLite database unless configured", () => {
    const hex = randomBytes(32).toString("hex");
    const p = new KeyProvider(join(dir, "never.key"), hex);
    expect(p.source).toBe("WEFT_SECRET_KEY");
    expect(p.get().bytes.toString("hex")).toBe(hex);
    expect(keyFilePath("/data/weft.db")).toBe("/data/weft-secret.key");
    expect(keyFilePath("/data/weft.db", "/etc/weft.key")).toBe("/etc/weft.key");
  });
});

describe("redaction", () => {
  it("replaces every secret inside strings, keys included, longest first, without touching the input", () => {
    const r = redactorFor(["abc", "abcdef", ""]);
    const v = { a: "x abcdef y abc", list: ["abc", 1, null, { abc: "abcabc" }], n: 3 };
    expect(r(v)).toEqual({
      a: `x ${REDACTED} y ${REDACTED}`,
      list: [REDACTED, 1, null, { [REDACTED]: `${REDACTED}${REDACTED}` }],
      n: 3,
    });
    expect(v.a).toBe("x abcdef y abc");
    // No secrets: the very same value.
    const same = { a: "abc" };
    expect(redactorFor([""])(same)).toBe(same);
  });
});
