import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FileValue, HttpService } from "../../src/ir/services.js";
import { FileStoreError } from "../../src/tools/errors.js";
import { DirFileService, MemoryFileService } from "../../src/tools/files.js";

const enc = (s: string) => new TextEncoder().encode(s);

describe("MemoryFileService", () => {
  it("returns Dify-shaped file values and reads bytes back", async () => {
    const fs = new MemoryFileService();
    const f = await fs.put(enc("hello"), { filename: "greeting.txt", mimeType: "text/plain" });
    expect(f).toMatchObject({
      dify_model_identity: "__dify__file__",
      type: "document",
      transfer_method: "tool_file",
      filename: "greeting.txt",
      extension: ".txt",
      mime_type: "text/plain",
      size: 5,
    });
    expect(f.related_id).toMatch(/^[0-9a-f]{64}$/);
    expect(new TextDecoder().decode(await fs.get(f))).toBe("hello");
  });

  it("is content-addressed: same bytes, same id, stored once", async () => {
    const fs = new MemoryFileService();
    const a = await fs.put(enc("x"), { filename: "a.txt", mimeType: "text/plain" });
    const b = await fs.put(enc("x"), { filename: "b.md", mimeType: "" });
    expect(a.related_id).toBe(b.related_id);
    expect(b.mime_type).toBe("text/markdown");
    expect(fs.count).toBe(1);
  });

  it("derives a missing extension from the MIME type and the category from both", async () => {
    const fs = new MemoryFileService();
    const png = await fs.put(new Uint8Array([137, 80, 78, 71]), { filename: "chart", mimeType: "image/png" });
    expect(png).toMatchObject({ filename: "chart.png", extension: ".png", type: "image" });
    const audio = await fs.put(new Uint8Array([1]), { filename: "s.mp3", mimeType: "audio/mpeg" });
    expect(audio.type).toBe("audio");
  });

  it("does not let callers mutate stored bytes", async () => {
    const fs = new MemoryFileService();
    const bytes = enc("abc");
    const f = await fs.put(bytes, { filename: "a.txt", mimeType: "text/plain" });
    bytes[0] = 0;
    const back = await fs.get(f);
    back[1] = 0;
    expect(new TextDecoder().decode(await fs.get(f))).toBe("abc");
  });

  it("reads data: URLs and rejects unknown files with a typed error", async () => {
    const fs = new MemoryFileService();
    const dataFile = {
      type: "document",
      transfer_method: "remote_url",
      remote_url: `data:text/plain;base64,${Buffer.from("inline").toString("base64")}`,
      filename: "i.txt",
      extension: ".txt",
      mime_type: "text/plain",
      size: 6,
    } as FileValue;
    expect(new TextDecoder().decode(await fs.get(dataFile))).toBe("inline");
    const missing = {
      ...dataFile,
      remote_url: null,
      transfer_method: "local_file",
      related_id: "f".repeat(64),
    } as FileValue;
    await expect(fs.get(missing)).rejects.toMatchObject({ code: "file.not_found" });
    await expect(fs.get(missing)).rejects.toBeInstanceOf(FileStoreError);
  });

  it("sets url from urlPrefix", async () => {
    const fs = new MemoryFileService({ urlPrefix: "http://127.0.0.1:9/files/" });
    const f = await fs.put(enc("u"), { filename: "u.json", mimeType: "application/json" });
    expect(f.url).toBe(`http://127.0.0.1:9/files/${f.related_id}.json`);
  });
});

describe("DirFileService", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "weft-files-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it("stores under <dir>/<2 hex>/<sha256> and survives a new instance", async () => {
    const a = new DirFileService(dir);
    const f = await a.put(enc("persist me"), {
      filename: "p.txt",
      mimeType: "text/plain",
      transferMethod: "local_file",
    });
    expect(f.transfer_method).toBe("local_file");
    const id = f.related_id as string;
    expect(a.pathOf(id)).toBe(join(dir, id.slice(0, 2), id));
    expect(await readFile(a.pathOf(id), "utf8")).toBe("persist me");
    const b = new DirFileService(dir);
    expect(new TextDecoder().decode(await b.get(f))).toBe("persist me");
  });

  it("stores the same content put many times at once (runs in parallel write equal files)", async () => {
    const a = new DirFileService(join(dir, "parallel"));
    const bytes = enc("identical bytes from parallel runs");
    const files = await Promise.all(
      Array.from({ length: 24 }, (_, i) => a.put(bytes, { filename: `f${i}.wav`, mimeType: "audio/wav" })),
    );
    expect(new Set(files.map((f) => f.related_id)).size).toBe(1);
    expect(new TextDecoder().decode(await a.get(files[23]!))).toBe("identical bytes from parallel runs");
  });

  it("refuses ids that are not content hashes (no path traversal)", () => {
    const a = new DirFileService(dir);
    expect(() => a.pathOf("../../etc/passwd")).toThrow(FileStoreError);
  });
});

describe("remote files", () => {
  let server: Server;
  let base = "";
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === "/doc.txt") {
        res.writeHead(200, { "content-type": "text/plain" });
        res.end("from the server");
      } else {
        res.writeHead(404);
        res.end();
      }
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
    const addr = server.address();
    base = `http://127.0.0.1:${typeof addr === "object" && addr ? addr.port : 0}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  // A minimal HttpService over fetch, as the engine would wire one.
  const http: HttpService = {
    async request(req) {
      const res = await fetch(req.url, {
        method: req.method,
        headers: req.headers,
        signal: AbortSignal.timeout(req.timeoutMs),
      });
      return {
        status: res.status,
        headers: Object.fromEntries(res.headers),
        body: new Uint8Array(await res.arrayBuffer()),
      };
    },
  };
  const remote = (path: string) =>
    ({
      type: "document",
      transfer_method: "remote_url",
      remote_url: `${base}${path}`,
      filename: "doc.txt",
      extension: ".txt",
      mime_type: "text/plain",
      size: 0,
    }) as FileValue;

  it("downloads remote_url files through the HTTP service", async () => {
    const fs = new MemoryFileService({ http });
    expect(new TextDecoder().decode(await fs.get(remote("/doc.txt")))).toBe("from the server");
    await expect(fs.get(remote("/nope"))).rejects.toMatchObject({
      code: "file.download_failed",
      details: { status: 404 },
    });
  });

  it("without an HTTP service, names the URL in a typed error", async () => {
    await expect(new MemoryFileService().get(remote("/doc.txt"))).rejects.toMatchObject({
      code: "file.remote_unavailable",
    });
  });
});
