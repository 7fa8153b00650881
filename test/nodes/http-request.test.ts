import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NodeExecutionError, NotConfiguredError } from "../../src/ir/errors.js";
import type { HttpRequestSpec, HttpService } from "../../src/ir/services.js";
import { parseKeyValueLines, responseIsFile } from "../../src/nodes/http-request.js";
import { MemoryFileService } from "../../src/tools/files.js";
import { createHttpService } from "../../src/tools/http.js";
import { PNG, startTestServer, type TestServer } from "./http-server.js";
import { describe_, makeNode, rulesOf, run } from "./llm-fakes.js";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

const http = () => createHttpService({ allowPrivate: true });

function node(config: Record<string, unknown>) {
  return makeNode("http1", "http-request", {
    method: "get",
    url: `${srv.base}/echo`,
    authorization: { type: "no-auth", config: null },
    headers: "",
    params: "",
    body: { type: "none", data: [] },
    timeout: { max_connect_timeout: 0, max_read_timeout: 0, max_write_timeout: 0 },
    ...config,
  });
}

const echoOf = (res: { outputs: Record<string, unknown> }) => JSON.parse(res.outputs.body as string);

describe("http-request: static description", () => {
  it("inputs cover url, headers, params, body templates, API key and file selectors", () => {
    const d = describe_(
      node({
        url: "https://api.test/{{#start.path#}}",
        headers: "Authorization:Bearer {{#env.KEY#}}\nX-Id:{{#start.id#}}",
        params: "q:{{#start.q#}}",
        authorization: { type: "api-key", config: { type: "custom", header: "X-Key", api_key: "{{#env.SECRET#}}" } },
        body: {
          type: "form-data",
          data: [
            { key: "name", type: "text", value: "{{#start.name#}}" },
            { key: "doc", type: "file", value: "", file: ["start", "doc"] },
          ],
        },
      }),
    );
    expect(d.inputs.map((i) => `${i.field}=${i.selector.join(".")}`)).toEqual([
      "url=start.path",
      "headers=env.KEY",
      "headers=start.id",
      "params=start.q",
      "authorization.config.api_key=env.SECRET",
      "body.data[0].value=start.name",
      "body.data[1].file=start.doc",
    ]);
    expect(d.outputs.map((o) => `${o.name}:${o.type}`)).toEqual([
      "status_code:number",
      "body:string",
      "headers:object",
      "files:array[file]",
    ]);
  });

  it("accepts a legacy plain-string body and any method case", () => {
    const d = describe_(node({ method: "POST", body: { type: "json", data: '{"a": "{{#x.y#}}"}' } }));
    expect(d.known).toBe(true);
    expect(d.inputs.map((i) => i.selector.join("."))).toEqual(["x.y"]);
    expect(rulesOf(node({ method: "POST" }))).toEqual([]);
  });

  it("rules: url, method, body type, API key", () => {
    const codes = (c: Record<string, unknown>) => rulesOf(node(c)).map((d) => d.code);
    expect(codes({ url: "" })).toContain("http.url_missing");
    expect(codes({ url: "ftp://x" })).toContain("http.url_scheme");
    expect(codes({ method: "fetch" })).toContain("http.method_invalid");
    expect(codes({ body: { type: "xml", data: [] } })).toContain("http.body_type_invalid");
    expect(codes({ authorization: { type: "api-key", config: { type: "bearer", api_key: "" } } })).toContain(
      "http.api_key_missing",
    );
  });

  it("parses key:value lines like Dify", () => {
    const id = (s: string) => s;
    expect(parseKeyValueLines("aa:bb\n cc:dd", id)).toEqual([
      ["aa", "bb"],
      ["cc", "dd"],
    ]);
    expect(parseKeyValueLines("aa:\n cc : dd\n", id)).toEqual([
      ["aa", ""],
      ["cc", "dd"],
    ]);
    expect(parseKeyValueLines("url:http://x:1/y\n\n:novalue", id)).toEqual([["url", "http://x:1/y"]]);
  });

  it("detects file responses", () => {
    expect(responseIsFile({ "content-type": "image/png" }, PNG)).toBe(true);
    expect(responseIsFile({ "content-type": "application/json" }, new Uint8Array())).toBe(false);
    expect(responseIsFile({ "content-type": "text/html" }, new Uint8Array())).toBe(false);
    expect(
      responseIsFile(
        { "content-type": "text/plain", "content-disposition": 'attachment; filename="a.txt"' },
        new Uint8Array(),
      ),
    ).toBe(true);
    expect(responseIsFile({ "content-type": "application/octet-stream" }, new TextEncoder().encode('{"a":1}'))).toBe(
      false,
    );
  });
});

describe("http-request: against a local server", () => {
  it("renders url, params and headers; bearer auth; lower-case method", async () => {
    const res = await run(
      node({
        url: `${srv.base}/{{#start.path#}}`,
        params: "q:{{#start.q#}}\nlang:en",
        headers: "X-Id:{{#start.id#}}\n{}",
        authorization: { type: "api-key", config: { type: "bearer", api_key: "{{#env.KEY#}}" } },
      }),
      { start: { path: "echo", q: "a b", id: 7 }, env: { KEY: "sekrit" } },
      { http: http() },
    );
    expect(res.outputs.status_code).toBe(200);
    const echo = echoOf(res);
    expect(echo.method).toBe("GET");
    expect(echo.url).toBe("/echo?q=a+b&lang=en");
    expect(echo.headers["x-id"]).toBe("7");
    expect(echo.headers.authorization).toBe("Bearer sekrit");
    expect((res.outputs.headers as Record<string, string>)["x-test"]).toBe("yes");
    expect(res.outputs.files).toEqual([]);
    expect(res.events.some((e) => e.type === "log" && e.text.includes("{}"))).toBe(true);
  });

  it("basic auth encodes user:pass; custom auth sets the named header", async () => {
    const basic = await run(
      node({ authorization: { type: "api-key", config: { type: "basic", api_key: "u:p" } } }),
      {},
      { http: http() },
    );
    expect(echoOf(basic).headers.authorization).toBe(`Basic ${Buffer.from("u:p").toString("base64")}`);
    const custom = await run(
      node({ authorization: { type: "api-key", config: { type: "custom", header: "X-API-Key", api_key: "k1" } } }),
      {},
      { http: http() },
    );
    expect(echoOf(custom).headers["x-api-key"]).toBe("k1");
  });

  it("json body: rendered, repaired, parsed and sent with application/json", async () => {
    const res = await run(
      node({
        method: "POST",
        headers: "",
        body: { type: "json", data: [{ key: "", type: "text", value: '{"input": "{{#start.msg#}}", "n": 2,}' }] },
      }),
      { start: { msg: "hi" } },
      { http: http() },
    );
    const echo = echoOf(res);
    expect(echo.method).toBe("POST");
    expect(echo.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(echo.body)).toEqual({ input: "hi", n: 2 });
  });

  it("legacy plain-string body data is one text item", async () => {
    const res = await run(
      node({ method: "post", body: { type: "raw-text", data: "plain {{#start.x#}}" } }),
      { start: { x: "text" } },
      { http: http() },
    );
    expect(echoOf(res).body).toBe("plain text");
    expect(echoOf(res).headers["content-type"]).toBe("text/plain");
  });

  it("x-www-form-urlencoded and form-data with a file", async () => {
    const url = await run(
      node({
        method: "post",
        body: {
          type: "x-www-form-urlencoded",
          data: [
            { key: "a", type: "text", value: "{{#start.a#}}" },
            { key: "b", type: "text", value: "2" },
          ],
        },
      }),
      { start: { a: "x y" } },
      { http: http() },
    );
    expect(echoOf(url).body).toBe("a=x+y&b=2");

    const files = new MemoryFileService();
    const doc = await files.put(new TextEncoder().encode("hello file"), {
      filename: "note.txt",
      mimeType: "text/plain",
    });
    const form = await run(
      node({
        method: "post",
        headers: "Content-Type:application/json",
        body: {
          type: "form-data",
          data: [
            { key: "title", type: "text", value: "T" },
            { key: "doc", type: "file", value: "", file: ["start", "doc"] },
          ],
        },
      }),
      { start: { doc } },
      { http: http(), files },
    );
    const echo = echoOf(form);
    expect(echo.headers["content-type"]).toMatch(/^multipart\/form-data; boundary=/);
    expect(echo.body).toContain('name="title"');
    expect(echo.body).toContain('filename="note.txt"');
    expect(echo.body).toContain("hello file");
  });

  it("binary body sends the file bytes", async () => {
    const files = new MemoryFileService();
    const f = await files.put(new Uint8Array([1, 2, 3]), { filename: "b.bin", mimeType: "application/octet-stream" });
    await run(
      node({
        method: "put",
        body: { type: "binary", data: [{ key: "", type: "file", value: "", file: ["start", "f"] }] },
      }),
      { start: { f } },
      { http: http(), files },
    );
    const got = srv.received.at(-1)!;
    expect(got.method).toBe("PUT");
    expect([...got.body]).toEqual([1, 2, 3]);
  });

  it("a file response becomes files[] with an empty body", async () => {
    const files = new MemoryFileService();
    const res = await run(node({ url: `${srv.base}/png` }), {}, { http: http(), files });
    expect(res.outputs.body).toBe("");
    const out = res.outputs.files as Array<Record<string, unknown>>;
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ mime_type: "image/png", type: "image" });
    expect(Buffer.from(await files.get(out[0] as never)).equals(PNG)).toBe(true);

    const dl = await run(node({ url: `${srv.base}/download` }), {}, { http: http(), files });
    expect((dl.outputs.files as Array<Record<string, unknown>>)[0]?.filename).toBe("report.bin");
  });

  it("decodes the declared charset", async () => {
    const res = await run(node({ url: `${srv.base}/gbk` }), {}, { http: http() });
    expect(res.outputs.body).toBe("你好");
  });

  it("non-2xx is a success without error handling, a failure with an error strategy or retry", async () => {
    const plain = await run(node({ url: `${srv.base}/status/404` }), {}, { http: http() });
    expect(plain.outputs).toMatchObject({ status_code: 404, body: "status 404" });
    for (const extra of [
      { error_strategy: "fail-branch" },
      { retry_config: { retry_enabled: true, max_retries: 3, retry_interval: 100 } },
    ]) {
      const err = await run(node({ url: `${srv.base}/status/500`, ...extra }), {}, { http: http() }).catch((e) => e);
      expect(err).toBeInstanceOf(NodeExecutionError);
      expect(err.code).toBe("http.status");
      expect(err.details.status_code).toBe(500);
    }
  });

  it("text over 1 MB fails; the guard's refusal surfaces as the node's error", async () => {
    const big = await run(node({ url: `${srv.base}/big?n=1100000` }), {}, { http: http() }).catch((e) => e);
    expect(big.code).toBe("http.response_too_large");
    const blocked = await run(node({}), {}, { http: createHttpService() }).catch((e) => e);
    expect(blocked).toBeInstanceOf(NodeExecutionError);
    expect(blocked.code).toBe("http.blocked_address");
    expect(blocked.nodeId).toBe("http1");
  });

  it("errors: no HTTP service, bad URL, bad JSON", async () => {
    await expect(run(node({}), {})).rejects.toBeInstanceOf(NotConfiguredError);
    const bad = await run(node({ url: "{{#start.u#}}" }), { start: { u: "localhost/x" } }, { http: http() }).catch(
      (e) => e,
    );
    expect(bad.code).toBe("http.invalid_url");
    const json = await run(
      node({ method: "post", body: { type: "json", data: [{ type: "text", value: "{{#start.v#}}" }] } }),
      { start: { v: "]]]" } },
      { http: http() },
    ).catch((e) => e);
    expect(json.code).toBe("http.body_json_invalid");
  });

  it("timeouts are capped at connect 10 s, read and write 600 s", async () => {
    let seen: HttpRequestSpec | undefined;
    const spy: HttpService = {
      async request(req) {
        seen = req;
        return { status: 200, headers: { "content-type": "text/plain" }, body: new TextEncoder().encode("ok") };
      },
    };
    await run(node({ timeout: { connect: 300, read: 30, write: 900 }, ssl_verify: false }), {}, { http: spy });
    expect(seen?.timeouts).toEqual({ connectMs: 10_000, readMs: 30_000, writeMs: 600_000 });
    expect(seen?.sslVerify).toBe(false);
    await run(node({ timeout: null }), {}, { http: spy });
    expect(seen?.timeouts).toEqual({ connectMs: 10_000, readMs: 600_000, writeMs: 600_000 });
  });
});
