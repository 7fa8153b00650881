/**
 * Issue 35, uploads through the service API as Dify treats them: the upload answer's `preview_url` is a signed,
 * expiring `/files/:id/file-preview` URL (refused unsigned, tampered or expired), and a file input's
 * `allowed_file_types` / `allowed_file_extensions` / `allowed_file_upload_methods` — a start variable's, or the
 * app's `features.file_upload` for `files` — refuse a file they do not allow with Dify's 400 `invalid_param`
 * "File validation failed for file: NAME" before any run starts. Literal HTTP, as Dify's curl examples.
 */
import { describe, expect, it } from "vitest";
import type { Workflow } from "../../../src/ir/workflow.js";
import { FILE_URL_TTL_S, FileSigner } from "../../../src/server/file-signing.js";
import { buildWorkflow, tpl } from "../../support/build.js";
import { v1ServerPerFile } from "../../support/per-file.js";

const SIGNING_KEY = "upload-rules-test-signing-key";
process.env.WEFT_FILES_SIGNING_KEY = SIGNING_KEY;
const s = v1ServerPerFile();

const post = (key: string, path: string, body: unknown) =>
  fetch(`${s.v1}${path}`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });

async function upload(key: string, name: string, text: string, type = "text/plain") {
  const form = new FormData();
  form.append("file", new Blob([text], { type }), name);
  form.append("user", "u");
  const res = await fetch(`${s.v1}/files/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}` },
    body: form,
  });
  expect(res.status).toBe(201);
  return (await res.json()) as { id: string; preview_url: string | null; extension: string };
}

/** A start file input (or file list) with Dify's three allow-lists, read back by name. */
function fileApp(rules: Record<string, unknown>, type: "file" | "file-list" = "file"): Workflow {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [{ variable: "doc", label: "Doc", type, required: true, ...rules }] },
      tpl("about", "{{ d }}", { d: type === "file" ? ["start", "doc", "filename"] : ["start", "doc"] }),
      { id: "end", type: "end", outputs: [{ variable: "about", value_selector: ["about", "output"] }] },
    ],
    edges: [
      ["start", "about"],
      ["about", "end"],
    ],
  });
}

async function expectRefused(res: Response, name: string, why: RegExp) {
  expect(res.status).toBe(400);
  const body = (await res.json()) as { code: string; message: string; status: number };
  expect(body.code).toBe("invalid_param");
  expect(body.status).toBe(400);
  expect(body.message.startsWith(`File validation failed for file: ${name}`)).toBe(true);
  expect(body.message).toMatch(why);
}

describe("uploads through /v1 (issue 35)", () => {
  it("preview_url is a signed, expiring file-preview URL; unsigned, tampered and expired ones are refused", async () => {
    const { key } = await s.app("preview", fileApp({ allowed_file_types: ["document"] }));
    const up = await upload(key, "notes.txt", "hello preview");
    expect(up.preview_url).not.toBeNull();
    const url = new URL(up.preview_url!);
    expect(url.origin).toBe(s.url);
    expect(url.pathname).toMatch(/^\/files\/[0-9a-f]{64}\.txt\/file-preview$/);
    expect([...url.searchParams.keys()]).toEqual(["timestamp", "nonce", "sign"]);
    const served = await fetch(url);
    expect(served.status).toBe(200);
    expect(await served.text()).toBe("hello preview");

    const unsigned = await fetch(`${url.origin}${url.pathname}`);
    expect(unsigned.status).toBe(403);
    expect(((await unsigned.json()) as any).code).toBe("forbidden");
    const tampered = new URL(url);
    tampered.searchParams.set("timestamp", String(Number(url.searchParams.get("timestamp")) + 1));
    expect((await fetch(tampered)).status).toBe(403);
    const id = url.pathname.split("/")[2]!;
    const old = new FileSigner(SIGNING_KEY, () => Date.now() - (FILE_URL_TTL_S + 5) * 1000);
    const path = old.path({
      type: "document",
      transfer_method: "local_file",
      filename: "notes.txt",
      extension: ".txt",
      mime_type: "text/plain",
      size: 13,
      related_id: id.slice(0, 64),
    });
    const expired = await fetch(`${s.url}${path}`);
    expect(expired.status).toBe(403);
    expect(((await expired.json()) as any).message).toContain("expired");
  }, 60_000);

  it("a start variable's allowed_file_types, extensions and upload methods refuse what they do not allow", async () => {
    const rules = {
      allowed_file_types: ["document"],
      allowed_file_extensions: [".md"],
      allowed_file_upload_methods: ["local_file"],
    };
    const { key } = await s.app("rules", fileApp(rules));
    const run = (doc: unknown) =>
      post(key, "/workflows/run", { inputs: { doc }, response_mode: "blocking", user: "u" });
    const txt = await upload(key, "a.txt", "text");
    const md = await upload(key, "b.md", "# md");
    const exe = await upload(key, "c.exe", "MZ", "application/octet-stream");

    const ok = (await (
      await run({ type: "document", transfer_method: "local_file", upload_file_id: txt.id })
    ).json()) as any;
    expect(ok.data).toMatchObject({ status: "succeeded", outputs: { about: "a.txt" } });
    // A custom file is judged by its extension.
    const custom = (await (
      await run({ type: "custom", transfer_method: "local_file", upload_file_id: md.id })
    ).json()) as any;
    expect(custom.data).toMatchObject({ status: "succeeded", outputs: { about: "b.md" } });

    await expectRefused(
      await run({ type: "image", transfer_method: "local_file", upload_file_id: txt.id }),
      "a.txt",
      /inputs\.doc: type image is not one of allowed_file_types document/,
    );
    await expectRefused(
      await run({ type: "custom", transfer_method: "local_file", upload_file_id: exe.id }),
      "c.exe",
      /extension \.exe is not one of allowed_file_extensions \.md/,
    );
    await expectRefused(
      await run({ transfer_method: "local_file", upload_file_id: exe.id }),
      "c.exe",
      /extension \.exe/,
    );
    await expectRefused(
      await run({ type: "document", transfer_method: "remote_url", url: "https://example.com/r.pdf" }),
      "r.pdf",
      /transfer method remote_url is not one of allowed_file_upload_methods local_file/,
    );
  }, 60_000);

  it("a file list is checked file by file, naming the one refused", async () => {
    const { key } = await s.app("list", fileApp({ allowed_file_types: ["document"] }, "file-list"));
    const a = await upload(key, "a.txt", "a");
    const b = await upload(key, "b.png", "png", "image/png");
    const res = await post(key, "/workflows/run", {
      inputs: {
        doc: [
          { type: "document", transfer_method: "local_file", upload_file_id: a.id },
          { type: "image", transfer_method: "local_file", upload_file_id: b.id },
        ],
      },
      response_mode: "blocking",
      user: "u",
    });
    await expectRefused(res, "b.png", /inputs\.doc\[1\]: type image/);
  }, 60_000);

  it("files of an app with upload on follow features.file_upload; image uploads follow its upload methods", async () => {
    const wf = fileApp({ allowed_file_types: ["document"] });
    wf.features = {
      file_upload: {
        enabled: true,
        allowed_file_types: ["image"],
        allowed_file_extensions: [],
        allowed_file_upload_methods: ["local_file"],
        number_limits: 3,
      },
    };
    const { key } = await s.app("features", wf);
    const doc = await upload(key, "in.txt", "in");
    const png = await upload(key, "p.png", "png", "image/png");
    const inputs = { doc: { type: "document", transfer_method: "local_file", upload_file_id: doc.id } };
    const run = (files: unknown[]) =>
      post(key, "/workflows/run", { inputs, files, response_mode: "blocking", user: "u" });
    const ok = await run([{ type: "image", transfer_method: "local_file", upload_file_id: png.id }]);
    expect(((await ok.json()) as any).data.status).toBe("succeeded");
    await expectRefused(
      await run([{ type: "document", transfer_method: "local_file", upload_file_id: doc.id }]),
      "in.txt",
      /files\[0\]: type document is not one of allowed_file_types image/,
    );
    await expectRefused(
      await run([{ type: "image", transfer_method: "remote_url", url: "https://example.com/cat.png" }]),
      "cat.png",
      /files\[0\]: transfer method remote_url is not allowed for images/,
    );
  }, 60_000);
});
