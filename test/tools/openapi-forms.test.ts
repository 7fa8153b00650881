/**
 * OpenAPI operations whose bodies are forms (issue 35, item 13), as in the classic Petstore document:
 * `updatePetWithForm` (application/x-www-form-urlencoded) and `uploadFile` (multipart/form-data with a
 * binary part) are tools with their body fields, and a call sends them in that encoding to a real server.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WeftConfigSchema } from "../../src/config/weft-config.js";
import { type BuiltServices, buildServices } from "../../src/runtime/services.js";
import { checkToolUses } from "../../src/tools/configured/check.js";
import { buildWorkflow } from "../support/build.js";

const petstore = {
  openapi: "3.0.0",
  info: { title: "Petstore", version: "1.0.0" },
  paths: {
    "/pet/{petId}": {
      post: {
        operationId: "updatePetWithForm",
        summary: "Updates a pet in the store with form data",
        parameters: [{ name: "petId", in: "path", required: true, schema: { type: "integer" } }],
        requestBody: {
          content: {
            "application/x-www-form-urlencoded": {
              schema: {
                type: "object",
                properties: { name: { type: "string" }, status: { type: "string" } },
                required: ["status"],
              },
            },
          },
        },
      },
    },
    "/pet/{petId}/uploadImage": {
      post: {
        operationId: "uploadFile",
        summary: "uploads an image",
        parameters: [{ name: "petId", in: "path", required: true, schema: { type: "integer" } }],
        requestBody: {
          content: {
            "multipart/form-data": {
              schema: {
                type: "object",
                properties: { additionalMetadata: { type: "string" }, file: { type: "string", format: "binary" } },
              },
            },
          },
        },
      },
    },
    "/pet/{petId}/xml": {
      put: {
        operationId: "updatePetXml",
        parameters: [{ name: "petId", in: "path", required: true, schema: { type: "integer" } }],
        requestBody: { content: { "application/xml": { schema: { type: "object" } } } },
      },
    },
  },
};

interface Seen {
  path: string;
  type: string;
  body: Buffer;
}
let server: Server;
let base = "";
const seen: Seen[] = [];
let services: BuiltServices;
let dir = "";

const read = (req: IncomingMessage) =>
  new Promise<Buffer>((r) => {
    const parts: Buffer[] = [];
    req.on("data", (d) => parts.push(d));
    req.on("end", () => r(Buffer.concat(parts)));
  });

beforeAll(async () => {
  server = createServer(async (req, res) => {
    if (req.url === "/openapi.json") {
      res
        .writeHead(200, { "content-type": "application/json" })
        .end(JSON.stringify({ ...petstore, servers: [{ url: base }] }));
      return;
    }
    seen.push({ path: req.url ?? "", type: req.headers["content-type"] ?? "", body: await read(req) });
    res.writeHead(200, { "content-type": "application/json" }).end('{"ok":true}');
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), "weft-openapi-forms-"));
  const cfg = WeftConfigSchema.parse({
    http: { allowHosts: ["127.0.0.1"] },
    tools: { openapi: { pets: { spec: `${base}/openapi.json` } } },
  });
  services = await buildServices({
    http: cfg.http,
    files: { dir: join(dir, "files") },
    tools: cfg.tools,
    baseDir: dir,
  });
});
afterAll(async () => {
  await services?.close();
  await new Promise((r) => server?.close(r));
  rmSync(dir, { recursive: true, force: true });
});

const invoke = (toolName: string, parameters: Record<string, unknown>) =>
  services.tools.invoke({ providerId: "", toolName, parameters });

describe("OpenAPI form bodies", () => {
  it("form and multipart operations become tools with their body fields", async () => {
    const specs = await services.tools.list();
    const form = specs.find((s) => s.name === "pets__updatePetWithForm")!;
    expect(form.parameters).toMatchObject({
      properties: { petId: { type: "integer" }, name: { type: "string" }, status: { type: "string" } },
      required: expect.arrayContaining(["petId", "status"]),
    });
    const upload = specs.find((s) => s.name === "pets__uploadFile")!;
    expect(upload.parameters).toMatchObject({
      properties: { additionalMetadata: { type: "string" }, file: { type: "string", format: "binary" } },
    });
  });

  it("updatePetWithForm sends application/x-www-form-urlencoded", async () => {
    const r = await invoke("pets__updatePetWithForm", { petId: 7, name: "Rex & co", status: "sold" });
    expect(r.json).toEqual([{ ok: true }]);
    const req = seen.find((q) => q.path === "/pet/7")!;
    expect(req.type).toBe("application/x-www-form-urlencoded");
    expect(Object.fromEntries(new URLSearchParams(req.body.toString()))).toEqual({ name: "Rex & co", status: "sold" });
  });

  it("uploadFile sends multipart/form-data with the file's bytes as a file part", async () => {
    const file = await services.files!.put(new TextEncoder().encode("PNGDATA"), {
      filename: "rex.png",
      mimeType: "image/png",
    });
    await invoke("pets__uploadFile", { petId: 7, additionalMetadata: "front", file });
    const req = seen.find((q) => q.path === "/pet/7/uploadImage")!;
    expect(req.type).toMatch(/^multipart\/form-data; boundary=/);
    const parsed = await new Response(new Uint8Array(req.body), { headers: { "content-type": req.type } }).formData();
    expect(parsed.get("additionalMetadata")).toBe("front");
    const part = parsed.get("file") as File;
    expect(part.name).toBe("rex.png");
    expect(part.type).toBe("image/png");
    expect(await part.text()).toBe("PNGDATA");
  });

  it("a body of a media type Weft cannot send is a typed error naming it, and nothing is sent", async () => {
    const before = seen.length;
    await expect(invoke("pets__updatePetXml", { petId: 7 })).rejects.toMatchObject({
      code: "tool.unsupported_body",
      message: expect.stringContaining("application/xml"),
    });
    expect(seen.length).toBe(before);
  });

  it("`tools check` calls the form operations configured and the one it cannot send broken", async () => {
    const tool = (id: string, name: string) => ({
      id,
      type: "tool",
      provider_id: "pets",
      provider_type: "api",
      tool_name: name,
      tool_parameters: { petId: { type: "constant", value: 7 } },
    });
    const wf = buildWorkflow({
      nodes: [
        { id: "start", type: "start", variables: [] },
        tool("form", "updatePetWithForm"),
        tool("upload", "uploadFile"),
        tool("xml", "updatePetXml"),
      ],
      edges: [
        ["start", "form"],
        ["form", "upload"],
        ["upload", "xml"],
      ],
    });
    const checks = await checkToolUses(wf, services.tools);
    expect(checks.map((c) => [c.nodeId, c.status])).toEqual([
      ["form", "configured"],
      ["upload", "configured"],
      ["xml", "broken"],
    ]);
    expect(checks[2]!.message).toContain("application/xml");
  });
});
