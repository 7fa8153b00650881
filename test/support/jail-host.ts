/**
 * A host process for the OS-sandbox tests, bundled by test/support/jail-bundle.ts and started as root or as
 * an unprivileged user. It reads one JSON request on stdin and prints one JSON line:
 * - `{"mode":"probe","script":…,"allowHosts":[…]}` runs `python3 -I -S -c script` straight in the jail (no
 *   bootstrap, no audit hook: what the operating system alone allows) with the egress proxy bound in, and
 *   prints the probe's stdout, stderr and exit code;
 * - `{"mode":"code","code":…,"inputs":{…},"allowHosts":[…]}` runs a Python code node through the sandbox service
 *   and prints its result or its error code and message.
 * Either way it also reports its own pid and uid, so a test can tell that a guest did not kill its host.
 * The request is the first line of stdin; with `"hold":true` the rest of stdin is passed to the probe's
 * stdin, so a test decides when a waiting probe may finish.
 */
import { EgressProxy } from "../../src/sandbox/egress.js";
import { spawnJailed } from "../../src/sandbox/jail.js";
import { DEFAULT_LIMITS } from "../../src/sandbox/limits.js";
import { resolvePython, runPython } from "../../src/sandbox/python.js";
import { GuardedHttpService } from "../../src/tools/http.js";

interface Request {
  mode: "probe" | "code";
  /** The HTTP node's `http.allowPrivate`. */
  allowPrivate?: boolean;
  script?: string;
  code?: string;
  inputs?: Record<string, unknown>;
  allowHosts?: string[];
  hold?: boolean;
}

/** The first line of stdin; what follows stays in the stream for the probe. */
function readRequest(): Promise<Request> {
  return new Promise((resolve, reject) => {
    let text = "";
    const onData = (b: Buffer) => {
      text += b.toString("utf8");
      const nl = text.indexOf("\n");
      if (nl < 0) return;
      process.stdin.off("data", onData);
      process.stdin.pause();
      const rest = text.slice(nl + 1);
      if (rest) process.stdin.unshift(Buffer.from(rest));
      resolve(JSON.parse(text.slice(0, nl)) as Request);
    };
    process.stdin.on("data", onData);
    process.stdin.once("error", reject);
  });
}

async function probe(req: Request, vet: (h: string) => Promise<Array<{ address: string; family: number }>>) {
  const proxy = await EgressProxy.start(vet);
  const exe = await resolvePython();
  const child = await spawnJailed({ argv: [exe, "-I", "-S", "-c", req.script ?? ""], egressSocket: proxy.socketPath });
  child.stdin.on("error", () => undefined);
  if (req.hold) process.stdin.pipe(child.stdin);
  else child.stdin.end();
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (b: Buffer) => {
    stdout += b.toString("utf8");
  });
  child.stderr.on("data", (b: Buffer) => {
    stderr += b.toString("utf8");
  });
  const code = await new Promise<number | null>((resolve) => child.on("close", (c) => resolve(c)));
  await proxy.close();
  return { stdout, stderr, code };
}

async function main() {
  const req = await readRequest();
  const http = new GuardedHttpService({ allowHosts: req.allowHosts ?? [], allowPrivate: req.allowPrivate });
  const vet = (h: string) => http.vet(h);
  const host = { pid: process.pid, uid: process.getuid?.() };
  if (req.mode === "probe") {
    console.log(JSON.stringify({ host, ...(await probe(req, vet)) }));
    return;
  }
  // The Python half of createSandbox (index.ts also loads the JavaScript engine's WASM, not bundled here).
  const proxy = await EgressProxy.start(vet);
  try {
    const result = await runPython(req.code ?? "", req.inputs ?? {}, DEFAULT_LIMITS, undefined, {
      egressChannel: () => proxy.openChannel(),
    });
    console.log(JSON.stringify({ host, result }));
  } catch (err) {
    const e = err as { code?: string; message: string; details?: unknown };
    console.log(JSON.stringify({ host, error: { code: e.code ?? "untyped", message: e.message, details: e.details } }));
  } finally {
    await proxy.close();
  }
}

main().catch((err) => {
  console.log(JSON.stringify({ fatal: String(err?.stack ?? err) }));
  process.exitCode = 1;
});
