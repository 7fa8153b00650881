/**
 * Malformed multipart uploads are typed 400s, never 500s (issue 28 E): Dify's error body on
 * `/v1/files/upload`, Weft's on `/api/files`. Bodies are written by hand, so each malformation is exact.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileWorkflow, startV1Server, type V1Server } from "../../support/v1-apps.js";

const B = "weftBoundary7";
const filePart = (filename: string, body = "hello") =>
  `--${B}\r\nContent-Disposition: form-data; name="file"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n${body}\r\n`;
const userPart = `--${B}\r\nContent-Disposition: form-data; name="user"\r\n\r\nu-1\r\n`;
const end = `--${B}--\r\n`;
const framed = `multipart/form-data; boundary=${B}`;

/** [case, Content-Type, body, the 400's Weft code] */
const MALFORMED: Array<[string, string, string, string]> = [
  ["no boundary parameter", "multipart/form-data", filePart("a.txt") + userPart + end, "request.bad_multipart"],
  ["an empty boundary", "multipart/form-data; boundary=", filePart("a.txt") + end, "request.bad_multipart"],
  ["a truncated body", framed, (filePart("a.txt") + userPart + end).slice(0, 70), "request.bad_multipart"],
  ["no closing boundary", framed, filePart("a.txt") + userPart, "request.bad_multipart"],
  [
    "a different boundary than declared",
    "multipart/form-data; boundary=other",
    filePart("a.txt") + userPart + end,
    "request.bad_multipart",
  ],
  ["a body that is not multipart", framed, "garbage", "request.bad_multipart"],
  ["an empty body", framed, "", "request.bad_multipart"],
  [
    "CRLF in the filename",
    framed,
    filePart("a\r\nContent-Type: text/html\r\n.txt") + userPart + end,
    "request.bad_multipart",
  ],
  ["NUL in the filename", framed, filePart("a\u0000b.txt") + userPart + end, "request.bad_filename"],
  ["a tab in the filename", framed, filePart("a\tb.txt") + userPart + end, "request.bad_filename"],
];

let s: V1Server;
let appKey: string;

beforeAll(async () => {
  s = await startV1Server();
  appKey = (await s.app("uploads", fileWorkflow())).key;
});
afterAll(async () => {
  await s?.stop();
});

const post = (url: string, key: string, contentType: string, body: string) =>
  fetch(url, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": contentType }, body });

describe("malformed multipart uploads", () => {
  for (const [name, contentType, body, code] of MALFORMED) {
    it(`${name}: /v1/files/upload answers 400 in Dify's shape`, async () => {
      const res = await post(`${s.v1}/files/upload`, appKey, contentType, body);
      const json = (await res.json()) as Record<string, unknown>;
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(Object.keys(json).sort()).toEqual(["code", "message", "status"]);
      expect(json).toMatchObject({ code: "invalid_param", status: 400 });
      expect(json.message).toMatch(
        code === "request.bad_filename" ? /file name .* control characters/ : /boundary|multipart body cannot be read/,
      );
    });

    it(`${name}: /api/files answers 400 ${code}`, async () => {
      const res = await post(`${s.url}/api/files`, s.key, contentType, body);
      const json = (await res.json()) as { error: { code: string; message: string } };
      expect(res.status, JSON.stringify(json)).toBe(400);
      expect(json.error.code).toBe(code);
      expect(json.error.message).not.toMatch(/\n\s+at /);
    });
  }

  it("well-formed uploads still work on both routes afterwards", async () => {
    const v1 = await post(`${s.v1}/files/upload`, appKey, framed, filePart("notes.txt") + userPart + end);
    expect(v1.status).toBe(201);
    expect(await v1.json()).toMatchObject({ name: "notes.txt", size: 5, created_by: "u-1" });
    const api = await post(`${s.url}/api/files`, s.key, framed, filePart("notes.txt") + end);
    expect(api.status).toBe(201);
    expect(((await api.json()) as { file: { filename: string } }).file.filename).toBe("notes.txt");
  });

  it("two files in one /api/files upload are refused rather than one dropped", async () => {
    const res = await post(`${s.url}/api/files`, s.key, framed, filePart("a.txt") + filePart("b.txt") + end);
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("request.too_many_files");
  });
});
