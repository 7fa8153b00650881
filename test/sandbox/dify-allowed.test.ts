/**
 * Issue 35: what Dify's sandbox lets Python code do and Weft refused — `pathlib`, `socket`, `os.listdir` and
 * `os.walk` (dify-sandbox's python_syscall allow-list has getdents64 and, with network on, socket, bind,
 * connect …). Allowed inside the OS jail only: a listing shows the jail's read-only system directories, its own
 * /proc and /dev and the private /tmp, never the host's; a socket reaches nothing but the egress proxy, so a
 * raw connect to an outside address still fails, and reading or writing a file is still refused. Every case
 * runs a real code node in the jail through the bundled host program, as root and as uid 65534.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pythonModuleVerdict } from "../../src/sandbox/python-modules.js";
import { bundleJailHost, type JailHost } from "../support/jail-bundle.js";

const isRoot = process.getuid?.() === 0;
const HOSTS: Array<{ name: string; uid: number | undefined }> = isRoot
  ? [
      { name: "host as root", uid: undefined },
      { name: "host as a non-root user", uid: 65534 },
    ]
  : [{ name: "host as this user", uid: undefined }];

/**
 * What the jail's root may hold (jail.ts: system directories, /proc, /dev, /tmp, /run for the proxy; python.ts:
 * /etc only for the CA bundle requests verifies TLS with).
 */
const JAIL_ROOT = new Set([
  "bin",
  "dev",
  "etc",
  "lib",
  "lib32",
  "lib64",
  "libx32",
  "proc",
  "run",
  "sbin",
  "tmp",
  "usr",
]);

let host: JailHost;
beforeAll(async () => {
  host = await bundleJailHost();
}, 60_000);
afterAll(() => host?.dispose());

describe("the analyser follows the sandbox's module policy", () => {
  it("pathlib and socket are allowed imports; socket internals and files stay refused", () => {
    expect(pythonModuleVerdict("pathlib")).toEqual({ allowed: true });
    expect(pythonModuleVerdict("socket")).toEqual({ allowed: true });
    expect(pythonModuleVerdict("_socket")).toEqual({ allowed: false, reason: "denied" });
    expect(pythonModuleVerdict("shutil")).toEqual({ allowed: false, reason: "denied" });
  });
});

describe.each(HOSTS)("Python code gets what Dify's sandbox allows, inside the jail ($name)", ({ uid }) => {
  const run = (code: string, allowHosts: string[] = []) =>
    host.call({ mode: "code", code, inputs: {}, allowHosts }, uid);

  it("os.listdir, os.walk and os.scandir list the jail, never the host", async () => {
    const reply = await run(`
import os
def main():
    walked = []
    for top, dirs, files in os.walk("/usr/lib/python3"):
        walked.append(top)
        if len(walked) > 3:
            break
    return {
        "root": sorted(os.listdir("/")),
        "tmp": os.listdir("/tmp"),
        "cwd": os.listdir(),
        "walked": walked,
        "scandir": sorted(e.name for e in os.scandir("/usr") if e.is_dir())[:50],
        "procs": sorted(p for p in os.listdir("/proc") if p.isdigit()),
        "etc": sorted(os.listdir("/etc")) if os.path.isdir("/etc") else [],
    }
`);
    expect(reply.error, JSON.stringify(reply.error)).toBeUndefined();
    const r = reply.result;
    expect(r.root.length).toBeGreaterThan(0);
    for (const name of r.root) expect(JAIL_ROOT.has(name), `/${name} is not a jail directory`).toBe(true);
    // Of the host's /etc the jail shows the public CA certificates only: no passwd, hosts or resolv.conf.
    for (const name of r.etc) expect(["ssl", "ca-certificates", "ca-certificates.crt"]).toContain(name);
    expect(r.root).not.toContain("home");
    expect(r.root).not.toContain("root");
    expect(r.root).not.toContain("work");
    expect(r.tmp).toEqual([]);
    expect(r.cwd).toEqual([]);
    expect(r.walked[0]).toBe("/usr/lib/python3");
    expect(r.scandir).toContain("lib");
    // Its own PID namespace: bubblewrap's init and the interpreter, not the host's processes.
    expect(r.procs.length).toBeLessThanOrEqual(3);
  }, 60_000);

  it("pathlib works for paths and listings; reading or writing a file through it is still refused", async () => {
    const ok = await run(`
from pathlib import Path, PurePosixPath
def main():
    p = Path("/usr/lib") / "python3"
    return {
        "suffix": PurePosixPath("report.final.pdf").suffix,
        "stem": Path("a/b/notes.txt").stem,
        "parts": list(p.parts),
        "exists": p.exists(),
        "is_dir": p.is_dir(),
        "listed": sorted(x.name for x in Path("/").iterdir()),
        "globbed": len(list(Path("/usr/lib/python3").glob("*"))) >= 0,
    }
`);
    expect(ok.error, JSON.stringify(ok.error)).toBeUndefined();
    expect(ok.result).toMatchObject({
      suffix: ".pdf",
      stem: "notes",
      parts: ["/", "usr", "lib", "python3"],
      exists: true,
      is_dir: true,
      globbed: true,
    });
    for (const name of ok.result.listed) expect(JAIL_ROOT.has(name), `/${name} is not a jail directory`).toBe(true);
    for (const code of [
      'from pathlib import Path\ndef main():\n    return {"x": Path("/proc/self/environ").read_bytes().decode()}\n',
      'from pathlib import Path\ndef main():\n    Path("/tmp/pwned").write_text("x")\n    return {}\n',
    ]) {
      const refused = await run(code);
      expect(refused.error?.code, JSON.stringify(refused)).toBe("sandbox.forbidden");
      expect(refused.error.message).toMatch(/file access/);
    }
  }, 60_000);

  it("socket imports, makes and binds sockets and names the jail's host; a lookup finds no resolver", async () => {
    const reply = await run(`
import socket
def main():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    port = s.getsockname()[1]
    s.close()
    try:
        socket.getaddrinfo("example.com", 80)
        lookup = "resolved"
    except OSError as e:
        lookup = type(e).__name__
    return {"port": port > 0, "host": socket.gethostname(), "lookup": lookup, "timeout": socket.timeout.__name__}
`);
    expect(reply.error, JSON.stringify(reply.error)).toBeUndefined();
    expect(reply.result).toEqual({ port: true, host: "sandbox", lookup: "gaierror", timeout: "TimeoutError" });
  }, 60_000);

  it("a raw socket connect to an outside address fails as before, with or without an HTTP client loaded", async () => {
    for (const code of [
      'import socket\ndef main():\n    socket.create_connection(("93.184.216.34", 80), timeout=5)\n    return {}\n',
      'import socket, requests\ndef main():\n    s = socket.socket()\n    s.connect(("1.1.1.1", 443))\n    return {}\n',
      'import socket\ndef main():\n    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n    s.sendto(b"x", ("8.8.8.8", 53))\n    return {}\n',
    ]) {
      const reply = await run(code, ["93.184.216.34", "1.1.1.1", "8.8.8.8"]);
      expect(reply.error?.code, JSON.stringify(reply)).toBe("sandbox.forbidden");
      expect(reply.error.message).toMatch(/direct network access is not allowed/);
    }
  }, 60_000);
});
