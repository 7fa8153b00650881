/**
 * Issue 35 item 10: Python code may `import requests` / `httpx` / `urllib.request` and `sys` as in Dify's
 * sandbox, with the network reached only through the egress proxy, which applies the HTTP node's address
 * policy (`http.allowPrivate`, `allowHosts`). Every case runs a real code node in the OS jail through a
 * bundled host program, with the host as root and as an unprivileged user (see jail.test.ts).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { createServer as createTlsServer, type Server as TlsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { analyse } from "../../src/analysis/index.js";
import { importDify } from "../../src/dsl/dify/index.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { corpusPath } from "../support/corpus.js";
import { bundleJailHost, type JailHost } from "../support/jail-bundle.js";

const isRoot = process.getuid?.() === 0;
const HOSTS: Array<{ name: string; uid: number | undefined }> = isRoot
  ? [
      { name: "host as root", uid: undefined },
      { name: "host as a non-root user", uid: 65534 },
    ]
  : [{ name: "host as this user", uid: undefined }];

let host: JailHost;
let plain: Server;
let tls: TlsServer;
let plainPort = 0;
let tlsPort = 0;
const hits: string[] = [];
const scratch = mkdtempSync(join(tmpdir(), "weft-requests-test-"));

function answer(scheme: string) {
  return (req: { method?: string; url?: string; on: Server["on"] }, res: { end(s: string): void }) => {
    let body = "";
    req.on("data", (b: Buffer) => {
      body += b.toString("utf8");
    });
    req.on("end", () => {
      hits.push(`${scheme} ${req.method} ${req.url}`);
      res.end(JSON.stringify({ scheme, method: req.method, path: req.url, body }));
    });
  };
}

beforeAll(async () => {
  host = await bundleJailHost();
  plain = createServer(answer("http") as never);
  await new Promise<void>((resolve) => plain.listen(0, "127.0.0.1", () => resolve()));
  plainPort = (plain.address() as AddressInfo).port;
  const key = join(scratch, "key.pem");
  const cert = join(scratch, "cert.pem");
  execFileSync(
    "openssl",
    [
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "1",
      "-subj",
      "/CN=127.0.0.1",
    ],
    { stdio: "ignore" },
  );
  tls = createTlsServer({ key: readFileSync(key), cert: readFileSync(cert) }, answer("https") as never);
  await new Promise<void>((resolve) => tls.listen(0, "127.0.0.1", () => resolve()));
  tlsPort = (tls.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  host?.dispose();
  await new Promise<void>((resolve) => plain?.close(() => resolve()));
  await new Promise<void>((resolve) => tls?.close(() => resolve()));
  rmSync(scratch, { recursive: true, force: true });
});

const withPorts = (code: string) => code.replaceAll("PLAIN", String(plainPort)).replaceAll("TLS", String(tlsPort));

describe.each(HOSTS)("Python code reaches the network through the egress proxy ($name)", ({ uid }) => {
  const run = async (code: string, policy: { allowPrivate?: boolean; allowHosts?: string[] }) =>
    host.call({ mode: "code", code: withPorts(code), inputs: {}, ...policy }, uid);

  it("requests, httpx and urllib.request reach a loopback server over http and https when http.allowPrivate allows it", async () => {
    const before = hits.length;
    const reply = await run(
      `
import requests, httpx, json, urllib.request
def main():
    a = requests.get("http://127.0.0.1:PLAIN/requests?q=1")
    b = requests.post("https://127.0.0.1:TLS/tls", json={"k": "é"}, verify=False)
    c = httpx.get("http://127.0.0.1:PLAIN/httpx")
    d = json.loads(urllib.request.urlopen("http://127.0.0.1:PLAIN/urllib").read())
    return {"a": a.json(), "b": b.json(), "c": c.json(), "d": d, "status": [a.status_code, b.status_code, c.status_code]}
`,
      { allowPrivate: true },
    );
    expect(reply.error, JSON.stringify(reply.error)).toBeUndefined();
    const r = reply.result;
    expect(r.status).toEqual([200, 200, 200]);
    expect(r.a).toEqual({ scheme: "http", method: "GET", path: "/requests?q=1", body: "" });
    expect(r.b).toEqual({ scheme: "https", method: "POST", path: "/tls", body: '{"k": "\\u00e9"}' });
    expect(r.c.path).toBe("/httpx");
    expect(r.d.path).toBe("/urllib");
    expect(hits.slice(before).sort()).toEqual(
      ["http GET /httpx", "http GET /requests?q=1", "http GET /urllib", "https POST /tls"].sort(),
    );
  }, 60_000);

  it("allowHosts lets exactly the named address through, as for the HTTP node", async () => {
    const reply = await run(
      `
import requests
def main():
    return {"path": requests.get("http://127.0.0.1:PLAIN/allowed").json()["path"]}
`,
      { allowHosts: ["127.0.0.1"] },
    );
    expect(reply.result).toEqual({ path: "/allowed" });
  }, 60_000);

  it("without allowPrivate the same requests are refused with a typed SSRF error, and nothing is reached", async () => {
    const before = hits.length;
    for (const [code, host] of [
      ['import requests\ndef main():\n    return {"t": requests.get("http://127.0.0.1:PLAIN/x").text}\n', "127.0.0.1"],
      [
        'import requests\ndef main():\n    return {"t": requests.get("https://localhost:TLS/x", verify=False).text}\n',
        "localhost",
      ],
      [
        'import httpx\ndef main():\n    return {"t": httpx.get("http://169.254.169.254/latest/meta-data/").text}\n',
        "169.254.169.254",
      ],
    ] as const) {
      const reply = await run(code, {});
      expect(reply.error?.code, JSON.stringify(reply)).toBe("sandbox.egress_refused");
      expect(reply.error.details).toMatchObject({ host, reason: "http.blocked_address", errorType: "ProxyError" });
      expect(reply.error.message).toMatch(/http\.allowPrivate or http\.allowHosts/);
    }
    // Code that catches the refusal keeps going (as in Dify), and sees the policy's reason.
    const caught = await run(
      `
import requests
def main():
    try:
        requests.get("http://10.0.0.1/")
    except requests.exceptions.ProxyError as e:
        return {"error": str(e)}
`,
      {},
    );
    expect(caught.result?.error, JSON.stringify(caught)).toMatch(
      /^http\.blocked_address: refusing to reach 10\.0\.0\.1/,
    );
    expect(hits.length).toBe(before);
  }, 90_000);

  it("code that bypasses the proxy is refused, and the jail itself has no route but the proxy", async () => {
    const before = hits.length;
    const bypass = await run(
      `
import requests
def main():
    return {"t": requests.get("http://127.0.0.1:PLAIN/direct", proxies={"http": None, "https": None}).text}
`,
      { allowPrivate: true },
    );
    expect(bypass.error?.code).toBe("sandbox.forbidden");
    expect(bypass.error.message).toMatch(/direct network access is not allowed.*socket\.connect.*127\.0\.0\.1/);
    // Straight in the jail, without the bootstrap's audit hook: a direct connect finds nobody listening in
    // the jail's own network namespace.
    const probe = await host.call(
      {
        mode: "probe",
        script: withPorts(
          'import socket\ntry:\n    socket.create_connection(("127.0.0.1", PLAIN), timeout=5)\n    print("connected")\nexcept OSError as e:\n    print(type(e).__name__)\n',
        ),
        allowHosts: ["127.0.0.1"],
      },
      uid,
    );
    expect(probe.stdout.trim()).toBe("ConnectionRefusedError");
    expect(hits.length).toBe(before);
  }, 60_000);

  it("import sys and os.path work; a refused module is a typed error naming it", async () => {
    const ok = await run(
      `
import sys, os
from os.path import join
def main():
    sys.stdout.write("printed\\n")
    return {"major": sys.version_info[0], "maxsize": sys.maxsize > 2**31, "join": join("a", "b"),
            "exists": os.path.exists("/upload_files"), "env": os.getenv("HOME", "none")}
`,
      {},
    );
    expect(ok.result).toEqual({ major: 3, maxsize: true, join: "a/b", exists: false, env: "none" });
    for (const [module, message] of [
      ["jieba", /module 'jieba' is not available in the Python sandbox/],
      ["subprocess", /import of module 'subprocess' is not allowed/],
    ] as const) {
      const reply = await run(`import ${module}\ndef main():\n    return {}\n`, {});
      expect(reply.error?.code).toBe("sandbox.forbidden");
      expect(reply.error.message).toMatch(message);
      expect(reply.error.details.module).toBe(module);
    }
  }, 60_000);
});

describe("the analyser warns about the imports the sandbox will refuse", () => {
  const load = (file: string) =>
    importDify(readFileSync(corpusPath("dify-dsl", file), "utf8"), { nameHint: file }).workflow;
  const refused = (file: string) =>
    analyse(load(file), nodeCatalogue).diagnostics.filter((d) => d.code === "code.module_refused");

  it("a corpus app importing jieba gets a warning naming it; apps importing requests or os get none", () => {
    const jieba = refused("svcvit__Awesome-Dify-Workflow/DSL/jieba.yml");
    expect(jieba.map((d) => d.severity)).toEqual(["warning"]);
    expect(jieba[0]?.message).toMatch(/module "jieba" is not available in the sandbox/);
    expect(refused("wwwzhouhui__dify-for-dsl/dsl/FLUX绘画机器人.yml")).toEqual([]);
    expect(refused("svcvit__Awesome-Dify-Workflow/DSL/File_read.yml").filter((d) => /"os/.test(d.message))).toEqual([]);
  });
});
