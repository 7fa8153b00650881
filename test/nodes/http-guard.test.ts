import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { blockedReason, createHttpService, GuardedHttpService, HttpError } from "../../src/tools/http.js";
import { startTestServer, type TestServer } from "./http-server.js";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

const get = (url: string, extra: Partial<Parameters<GuardedHttpService["request"]>[0]> = {}) => ({
  method: "GET",
  url,
  headers: {},
  timeoutMs: 5000,
  ...extra,
});

describe("address classification", () => {
  it.each([
    "127.0.0.1",
    "127.255.0.9",
    "10.0.0.1",
    "172.16.5.5",
    "192.168.1.1",
    "169.254.169.254",
    "100.64.0.1",
    "0.0.0.0",
    "224.0.0.1",
    "::1",
    "::",
    "fe80::1",
    "fc00::1",
    "fd00:ec2::254",
    "::ffff:127.0.0.1",
    "::ffff:7f00:1",
    "::ffff:169.254.169.254",
    "64:ff9b::10.0.0.1",
    "2002:c0a8:0101::1",
    "ff02::1",
  ])("blocks %s", (a) => {
    expect(blockedReason(a)).toBeDefined();
  });

  it.each(["8.8.8.8", "1.1.1.1", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8"])(
    "allows %s",
    (a) => {
      expect(blockedReason(a)).toBeUndefined();
    },
  );
});

describe("GuardedHttpService", () => {
  it("refuses loopback by default (IP literal, localhost name, IPv4-mapped IPv6 literal)", async () => {
    const http = createHttpService();
    for (const url of [
      `${srv.base}/echo`,
      `http://localhost:${srv.port}/echo`,
      `http://[::ffff:127.0.0.1]:${srv.port}/echo`,
      `http://2130706433:${srv.port}/echo`,
      `http://0x7f.0.0.1:${srv.port}/echo`,
      `http://[::1]:${srv.port}/echo`,
      "http://169.254.169.254/latest/meta-data/",
    ]) {
      const err = await http.request(get(url)).catch((e) => e);
      expect(err, url).toBeInstanceOf(HttpError);
      expect(err.code, url).toBe("http.blocked_address");
    }
    expect(srv.received.filter((r) => r.url === "/echo")).toHaveLength(0);
  });

  it("refuses a name when any resolved address is private", async () => {
    const http = new GuardedHttpService({
      resolve: async () => [
        { address: "93.184.216.34", family: 4 },
        { address: "10.1.1.1", family: 4 },
      ],
    });
    const err = await http.request(get("http://mixed.test/")).catch((e) => e);
    expect(err.code).toBe("http.blocked_address");
    expect(err.message).toContain("10.1.1.1");
  });

  it("reaches the local server when allowPrivate is on", async () => {
    const http = createHttpService({ allowPrivate: true });
    const res = await http.request(get(`${srv.base}/echo?a=1`, { headers: { "x-hello": "there" } }));
    expect(res.status).toBe(200);
    const echoed = JSON.parse(new TextDecoder().decode(res.body));
    expect(echoed.url).toBe("/echo?a=1");
    expect(echoed.headers["x-hello"]).toBe("there");
    expect(res.headers["x-test"]).toBe("yes");
  });

  it("an allowlist entry (CIDR or host name) opens just that target", async () => {
    const byCidr = createHttpService({ allowHosts: ["127.0.0.0/8"] });
    expect((await byCidr.request(get(`${srv.base}/echo`))).status).toBe(200);
    const byName = new GuardedHttpService({
      allowHosts: ["api.internal"],
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    const res = await byName.request(get(`http://api.internal:${srv.port}/echo`));
    expect(res.status).toBe(200);
    // The connection went to the vetted address: the server saw the request with the original Host.
    expect(srv.received.at(-1)?.headers.host).toBe(`api.internal:${srv.port}`);
  });

  it("re-checks every redirect target", async () => {
    const http = new GuardedHttpService({
      allowHosts: ["api.internal"],
      resolve: async () => [{ address: "127.0.0.1", family: 4 }],
    });
    const ok = await http.request(get(`http://api.internal:${srv.port}/redirect?to=/echo`));
    expect(ok.status).toBe(200);
    const to = encodeURIComponent(`http://127.0.0.1:${srv.port}/echo`);
    const err = await http.request(get(`http://api.internal:${srv.port}/redirect?to=${to}`)).catch((e) => e);
    expect(err.code).toBe("http.blocked_address");
  });

  it("303 turns a POST into a GET", async () => {
    const http = createHttpService({ allowPrivate: true });
    const res = await http.request({
      ...get(`${srv.base}/redirect?code=303&to=/echo`),
      method: "POST",
      body: "payload",
    });
    expect(JSON.parse(new TextDecoder().decode(res.body)).method).toBe("GET");
  });

  it("typed errors: timeout, too large, bad URL, refused connection", async () => {
    const http = createHttpService({ allowPrivate: true });
    const slow = await http
      .request(get(`${srv.base}/slow?ms=1500`, { timeouts: { connectMs: 1000, readMs: 200 } }))
      .catch((e) => e);
    expect(slow.code).toBe("http.timeout");
    const big = await http.request(get(`${srv.base}/big?n=5000`, { maxResponseBytes: 1000 })).catch((e) => e);
    expect(big.code).toBe("http.response_too_large");
    const bad = await http.request(get("not a url")).catch((e) => e);
    expect(bad.code).toBe("http.invalid_url");
    const ftp = await http.request(get("ftp://127.0.0.1/x")).catch((e) => e);
    expect(ftp.code).toBe("http.invalid_url");
    const refused = await http.request(get("http://127.0.0.1:1/")).catch((e) => e);
    expect(refused.code).toBe("http.connection_failed");
  });
});
