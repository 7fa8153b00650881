/**
 * The OS boundary around Python code (issue 28, item 1). A security probe escaped the audit-hook sandbox:
 * `__import__.__kwdefaults__` reached `sys.modules`, whose `_imp.create_builtin` builds a fresh `posix`
 * (and `_socket`, `_posixsubprocess` …) that the bootstrap never defanged; with it a guest made FIFOs on the
 * host, SIGKILLed its host process and other guests, and read the host's working directory. These tests
 * replay that escape, and also run probes straight in the jail with no audit hook at all, so what they
 * check is what the operating system alone allows. Each runs with the host as root and as an unprivileged
 * user (a bundled host program started as uid 65534).
 */
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSandbox } from "../../src/sandbox/index.js";
import { bundleJailHost, type JailHost } from "../support/jail-bundle.js";

const isRoot = process.getuid?.() === 0;
/** As root the tests run every case twice: the host as root, and the host as `nobody`. */
const HOSTS: Array<{ name: string; uid: number | undefined }> = isRoot
  ? [
      { name: "host as root", uid: undefined },
      { name: "host as a non-root user", uid: 65534 },
    ]
  : [{ name: "host as this user", uid: undefined }];

let host: JailHost;
let target: Server;
let targetPort = 0;
let hits = 0;
const scratch = mkdtempSync(join(tmpdir(), "weft-jail-test-"));

beforeAll(async () => {
  host = await bundleJailHost();
  target = createServer((_req, res) => {
    hits++;
    res.end("reached");
  });
  await new Promise<void>((resolve) => target.listen(0, "127.0.0.1", () => resolve()));
  targetPort = (target.address() as AddressInfo).port;
}, 60_000);

afterAll(async () => {
  host?.dispose();
  await new Promise<void>((resolve) => target?.close(() => resolve()));
  rmSync(scratch, { recursive: true, force: true });
});

/** Output of a probe that prints one JSON object as its last line. */
function probeJson(reply: Record<string, any>): Record<string, any> {
  expect(reply.code, `probe failed: ${reply.stderr}`).toBe(0);
  return JSON.parse(String(reply.stdout).trim().split("\n").pop() ?? "");
}

/** What the jail's root holds: the system directories this host has, and the jail's own mounts. */
function expectedRoot(): string[] {
  const system = ["usr", "bin", "sbin", "lib", "lib32", "lib64", "libx32"].filter((d) => {
    try {
      lstatSync(`/${d}`);
      return true;
    } catch {
      return false;
    }
  });
  return [...system, "dev", "proc", "run", "tmp"].sort();
}

const SYSTEM = ["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

/** Every path outside /proc and /dev, the system directories named but not entered. */
function expectedFiles(): string[] {
  const system = SYSTEM.filter((d) => existsSync(d) || isLink(d)).map((d) =>
    lstatSync(d).isSymbolicLink() ? `${d} -> ${readlinkSync(d)}` : `${d}/`,
  );
  return [...system, "/run/", "/run/weft/", "/run/weft/egress.sock", "/tmp/"].sort();
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

const ENUMERATE = String.raw`
import os, json, socket
SYSTEM = ${JSON.stringify(SYSTEM)}
def walk(top):
    found = []
    for name in sorted(os.listdir(top)):
        path = os.path.join(top, name)
        if path in ("/proc", "/dev"):
            continue
        if path in SYSTEM and not os.path.islink(path):
            found.append(path + "/")
        elif os.path.islink(path):
            found.append(path + " -> " + os.readlink(path))
        elif os.path.isdir(path):
            found.append(path + "/")
            found.extend(walk(path))
        else:
            found.append(path)
    return found
def rows(name):
    try:
        with open("/proc/net/" + name) as f:
            return len(f.read().strip().split("\n")) - 1
    except OSError as e:
        return "unreadable: %s" % e.strerror
def netlink():
    try:
        socket.socket(socket.AF_NETLINK, socket.SOCK_RAW, 0)
        return "opened"
    except OSError as e:
        return e.errno
status = dict(line.split(":", 1) for line in open("/proc/self/status").read().strip().split("\n"))
print(json.dumps({
    "processes": sorted(p for p in os.listdir("/proc") if p.isdigit()),
    "root": sorted(os.listdir("/")),
    "files": walk("/"),
    "dev": sorted(os.listdir("/dev")),
    "sockets": {n: rows(n) for n in ("tcp", "tcp6", "udp", "udp6", "raw", "raw6", "unix", "packet")},
    "interfaces": sorted(l.split(":")[0].strip() for l in open("/proc/net/dev").read().strip().split("\n")[2:]),
    "netlink": netlink(),
    "ids": [os.getuid(), os.geteuid(), os.getgid(), os.getegid(), os.getgroups()],
    "caps": [status[k].strip() for k in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")],
    "no_new_privs": status["NoNewPrivs"].strip(),
    "seccomp": status["Seccomp"].strip(),
    "hostname": socket.gethostname(),
    "env": dict(os.environ),
}))
`;

describe.each(HOSTS)("the OS sandbox ($name)", ({ uid }) => {
  it("a guest can reach exactly this: its own two processes, the system directories, loopback, the egress socket", async () => {
    const seen = probeJson(await host.call({ mode: "probe", script: ENUMERATE }, uid));
    // bubblewrap's init and the guest: nothing of the host or of other guests.
    expect(seen.processes).toEqual(["1", "2"]);
    expect(seen.root).toEqual(expectedRoot());
    // Every path outside /proc and /dev: the read-only system directories, the egress socket, an empty /tmp.
    expect([...seen.files].sort()).toEqual(expectedFiles());
    expect(seen.dev).toEqual(
      [
        "core",
        "fd",
        "full",
        "null",
        "ptmx",
        "pts",
        "random",
        "shm",
        "stderr",
        "stdin",
        "stdout",
        "tty",
        "urandom",
        "zero",
      ].sort(),
    );
    // No socket of any family, and loopback as the only interface.
    expect(seen.sockets).toEqual({ tcp: 0, tcp6: 0, udp: 0, udp6: 0, raw: 0, raw6: 0, unix: 0, packet: 0 });
    expect(seen.interfaces).toEqual(["lo"]);
    expect(seen.netlink).toBe(97); // EAFNOSUPPORT: only local, IPv4 and IPv6 sockets exist for it
    expect(seen.ids).toEqual([65534, 65534, 65534, 65534, []]);
    expect(seen.caps).toEqual(Array(5).fill("0000000000000000"));
    expect(seen.no_new_privs).toBe("1");
    expect(seen.seccomp).toBe("2");
    expect(seen.hostname).toBe("sandbox");
    // bubblewrap sets PWD, and Python itself sets LC_CTYPE (PEP 538); nothing of the host's environment.
    expect(Object.keys(seen.env).filter((k) => k !== "PWD" && k !== "LC_CTYPE")).toEqual([]);
  }, 60_000);

  it("a guest creates no host file and reads no host path", async () => {
    const marker = `weft-jail-${process.pid}-${Date.now()}`;
    const secret = join(scratch, "secret.txt");
    writeFileSync(secret, "host secret");
    chmodSync(scratch, 0o755);
    chmodSync(secret, 0o644);
    const script = `
import os, json
marker = ${JSON.stringify(marker)}
out = {}
def attempt(name, fn):
    try:
        fn()
        out[name] = "ok"
    except OSError as e:
        out[name] = e.errno
attempt("file_in_tmp", lambda: open("/tmp/" + marker, "w").write("x"))
attempt("fifo", lambda: os.mkfifo("/tmp/" + marker + ".fifo"))
attempt("node", lambda: os.mknod("/tmp/" + marker + ".node"))
attempt("usr", lambda: open("/usr/" + marker, "w"))
attempt("run", lambda: open("/run/weft/" + marker, "w"))
for path in ${JSON.stringify(["/etc/passwd", "/etc/shadow", "/root", "/home", process.cwd(), secret, "/proc/1/root/etc/passwd"])}:
    attempt("read " + path, lambda: open(path).read() if not os.path.isdir(path) else os.listdir(path))
out["cwd"] = os.getcwd()
print(json.dumps(out))
`;
    const seen = probeJson(await host.call({ mode: "probe", script }, uid));
    // Inside its private /tmp a guest may write; nothing of it reaches the host.
    expect(seen.file_in_tmp).toBe("ok");
    expect(seen.fifo).toBe(1); // EPERM: mknod is not in the guest's syscalls
    expect(seen.node).toBe(1);
    expect(seen.usr).toBe(30); // EROFS
    expect(seen.run).toBe(30); // the jail's root is read-only too
    for (const path of ["/etc/passwd", "/etc/shadow", "/root", "/home", process.cwd(), secret]) {
      expect(seen[`read ${path}`], path).toBe(2); // ENOENT: not in the jail at all
    }
    expect([2, 13]).toContain(seen["read /proc/1/root/etc/passwd"]);
    expect(seen.cwd).toBe("/tmp");
    const leaked = readdirSync(tmpdir()).filter((f) => f.startsWith(marker));
    expect(leaked).toEqual([]);
  }, 60_000);

  it("a guest reaches the network only through the egress proxy, which applies the HTTP node's address policy", async () => {
    const before = hits;
    const script = String.raw`
import socket, json
port = ${targetPort}
out = {}
try:
    socket.create_connection(("127.0.0.1", port), timeout=5)
    out["direct"] = "connected"
except OSError as e:
    out["direct"] = type(e).__name__
try:
    socket.getaddrinfo("example.com", 80)
    out["dns"] = "resolved"
except OSError as e:
    out["dns"] = type(e).__name__
def via_proxy(request, follow=None):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect("/run/weft/egress.sock")
    s.sendall(request.encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            break
        data += chunk
    head = data.split(b"\r\n\r\n", 1)[0].decode()
    body = b""
    if follow and head.startswith("HTTP/1.1 200"):
        s.sendall(follow.encode())
        while True:
            chunk = s.recv(4096)
            if not chunk:
                break
            body += chunk
    s.close()
    code = [l.split(":", 1)[1].strip() for l in head.split("\r\n") if l.lower().startswith("x-weft-error:")]
    return {"status": head.split("\r\n")[0], "error": code[0] if code else None, "body": body.decode()[-7:]}
out["allowed"] = via_proxy("CONNECT 127.0.0.1:%d HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" % port,
                           "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
out["metadata"] = via_proxy("CONNECT 169.254.169.254:80 HTTP/1.1\r\nHost: x\r\n\r\n")
out["private"] = via_proxy("CONNECT 10.0.0.1:80 HTTP/1.1\r\nHost: x\r\n\r\n")
out["other_loopback"] = via_proxy("GET http://127.0.0.2:%d/ HTTP/1.1\r\nHost: 127.0.0.2\r\nConnection: close\r\n\r\n" % port)
print(json.dumps(out))
`;
    const seen = probeJson(await host.call({ mode: "probe", script, allowHosts: ["127.0.0.1"] }, uid));
    expect(seen.direct).toBe("ConnectionRefusedError"); // its own network namespace: nobody listens there
    expect(seen.dns).toBe("gaierror");
    expect(seen.allowed).toEqual({ status: "HTTP/1.1 200 Connection Established", error: null, body: "reached" });
    for (const k of ["metadata", "private", "other_loopback"]) {
      expect(seen[k].status, k).toMatch(/^HTTP\/1\.1 403/);
      expect(seen[k].error, k).toBe("http.blocked_address");
    }
    expect(hits - before).toBe(1);
  }, 60_000);

  it("a guest cannot signal its host, the test, or another guest", async () => {
    const marker = `weft_other_guest_${process.pid}_${Date.now()}`;
    // Another guest that waits until released, named in its command line so the host can find it.
    const other = host.start(
      { mode: "probe", hold: true, script: `import sys  # ${marker}\nsys.stdin.read()\nprint("alive")` },
      uid,
    );
    const otherPids = await waitForProcesses(marker);
    const victims = [process.pid, process.ppid, ...otherPids];
    const script = `
import os, signal, json
out = {"kill": {}, "visible": sorted(p for p in os.listdir("/proc") if p.isdigit())}
for pid in ${JSON.stringify(victims)}:
    try:
        os.kill(pid, signal.SIGKILL)
        out["kill"][str(pid)] = "sent"
    except OSError as e:
        out["kill"][str(pid)] = e.errno
try:
    os.pidfd_open(1)
    out["pidfd"] = "opened"
except OSError as e:
    out["pidfd"] = e.errno
try:
    os.kill(-1, signal.SIGKILL)  # every process it may signal, which is none but its own
    out["kill_all"] = "sent"
except OSError as e:
    out["kill_all"] = e.errno
print(json.dumps(out))
`;
    const attacker = probeJson(await host.call({ mode: "probe", script }, uid));
    expect(attacker.visible).toEqual(["1", "2"]);
    for (const pid of victims) expect(attacker.kill[String(pid)], `pid ${pid}`).toBe(3); // ESRCH: not in its namespace
    expect(attacker.pidfd).toBe(1); // EPERM from the seccomp filter
    other.release();
    const survivor = await other.reply;
    expect(survivor.stdout.trim()).toBe("alive");
    expect(survivor.code).toBe(0);
  }, 60_000);

  it("the probe's escape through _imp.create_builtin gains nothing: no host file, no signal, no network, no host path", async () => {
    const marker = `weft-escape-${process.pid}-${Date.now()}`;
    const code = `
def main(victims, marker, paths):
    mods = __import__.__kwdefaults__["_mods"]
    imp = mods["_imp"]
    class Spec:
        name = "posix"
    posix = imp.create_builtin(Spec)
    # The calls CPython does not audit, as the probe used them: only the OS stands in their way.
    out = {"cwd": posix.getcwd(), "ppid": posix.getppid(), "pidfd": [], "stat": {}}
    for pid in victims + [posix.getppid()]:
        try:
            posix.pidfd_open(pid)
            out["pidfd"].append("opened")
        except OSError as e:
            out["pidfd"].append(e.errno)
    for what, fn in (("fifo", lambda: posix.mkfifo("/tmp/" + marker)), ("node", lambda: posix.mknod("/tmp/" + marker + "n"))):
        try:
            out[what] = fn()
        except OSError as e:
            out[what] = e.errno
    for path in paths:
        out["stat"][path] = posix.access(path, 0)
    return out
`;
    const paths = ["/etc/passwd", "/root", "/home", process.cwd(), tmpdir()];
    const reply = await host.call(
      { mode: "code", code, inputs: { victims: [process.pid, process.ppid], marker, paths } },
      uid,
    );
    // The host answered: it was not killed. Its own pid is outside the guest's namespace as well.
    expect(reply.exit).toEqual({ code: 0, signal: null });
    const result = reply.result ?? reply.error;
    expect(reply.result, JSON.stringify(result)).toBeDefined();
    expect(reply.result.cwd).toBe("/tmp");
    expect(reply.result.ppid).toBe(1);
    expect(reply.result.pidfd).toEqual([1, 1, 1]); // EPERM: the seccomp filter
    expect(reply.result.fifo).toBe(1);
    expect(reply.result.node).toBe(1);
    // The host's paths do not exist in the jail (its /tmp is its own, and empty).
    expect(reply.result.stat).toEqual({
      "/etc/passwd": false,
      "/root": false,
      "/home": false,
      [process.cwd()]: false,
      [tmpdir()]: true,
    });
    expect(existsSync(join(tmpdir(), marker))).toBe(false);
  }, 60_000);
});

describe("where the OS sandbox cannot run, Python code nodes are refused with the fix named", () => {
  const saved = process.env.WEFT_BWRAP;
  afterAll(() => {
    if (saved === undefined) delete process.env.WEFT_BWRAP;
    else process.env.WEFT_BWRAP = saved;
  });
  const run = () => createSandbox().run({ language: "python3", code: "def main():\n    return {}", inputs: {} });

  it("without bubblewrap", async () => {
    process.env.WEFT_BWRAP = join(scratch, "no-such-bwrap");
    await expect(run()).rejects.toMatchObject({
      code: "sandbox.unavailable",
      message: expect.stringMatching(/apt-get install bubblewrap/),
    });
  });

  it("on a host that does not allow user namespaces", async () => {
    // What bubblewrap prints there, exactly as it fails before starting the guest.
    const fake = join(scratch, "bwrap-locked-down");
    writeFileSync(
      fake,
      "#!/bin/sh\necho 'bwrap: No permissions to creating new namespace, likely because the kernel does not allow non-privileged user namespaces.' >&2\nexit 1\n",
    );
    chmodSync(fake, 0o755);
    process.env.WEFT_BWRAP = fake;
    await expect(run()).rejects.toMatchObject({
      code: "sandbox.unavailable",
      message: expect.stringMatching(/user namespaces/),
    });
  });
});

/** Host pids of the processes whose command line contains `marker`, once at least one exists. */
async function waitForProcesses(marker: string): Promise<number[]> {
  for (;;) {
    const found: number[] = [];
    for (const entry of readdirSync("/proc")) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) found.push(Number(entry));
      } catch {
        // ended meanwhile
      }
    }
    if (found.length > 0) return found;
    await new Promise((r) => setImmediate(r));
  }
}
