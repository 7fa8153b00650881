import { type ChildProcessWithoutNullStreams, execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { constants as osConstants } from "node:os";
import { dirname } from "node:path";
import { SANDBOX_STARTUP_ALLOWANCE_MS, type SandboxLimits } from "../ir/services.js";
import type { EgressChannel, EgressRefusal } from "./egress.js";
import { clip, SandboxError } from "./errors.js";
import { EGRESS_SOCKET, jailSetupError, spawnJailed } from "./jail.js";
import { encodeInputs, parseReply } from "./json.js";
import { PYTHON_BOOTSTRAP } from "./python-bootstrap.js";
import { PYTHON_MODULES } from "./python-modules.js";

/**
 * Python code nodes run in a fresh `python3` process per call, inside the OS jail of jail.ts (the
 * boundary), and under the bootstrap's rlimits and audit hook (a second layer that turns the common
 * mistakes into clear errors): isolated mode, no site, an empty environment. Node enforces the wall
 * clock and the byte budget of everything the child writes. The user's `timeoutMs` starts when the
 * bootstrap reports that the code starts (`<nonce>:started`), so a slow interpreter or jail start on a
 * loaded machine is never charged to the user's code.
 */

const language = "python3" as const;
/** Room for the reply envelope and the guest's stderr beyond the result budget. */
const STDOUT_SLACK = 64 * 1024;
const STDERR_KEEP = 16 * 1024;

const resolved = new Map<string, Promise<string>>();

/**
 * The system interpreter by default: it lives under /usr, which every jail shows read-only, and its
 * library paths are the distribution's, not a user's home.
 */
function defaultPython(): string {
  return process.env.WEFT_PYTHON ?? (existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3");
}

/**
 * `python3` is often a shim (pyenv, asdf) that needs the host environment to find the real
 * interpreter; the sandbox runs with an empty environment, so it resolves the real binary once.
 */
export function resolvePython(command = defaultPython()): Promise<string> {
  const known = resolved.get(command);
  if (known) return known;
  const found = new Promise<string>((resolve, reject) => {
    // Audit hooks (the second layer) exist from Python 3.8 on.
    const probe = "import sys; print(sys.executable if sys.version_info >= (3, 8) else '')";
    execFile(command, ["-c", probe], { timeout: 10_000 }, (err, stdout) => {
      const exe = stdout?.toString().trim();
      if (err || !exe) {
        resolved.delete(command);
        reject(
          new SandboxError(
            "sandbox.unavailable",
            `Python code nodes need a Python 3.8+ interpreter on this machine (tried "${command}": ${err?.message ?? "too old"})`,
            { language },
          ),
        );
        return;
      }
      resolve(exe);
    });
  });
  resolved.set(command, found);
  return found;
}

/** Where the interpreter finds installed packages (requests, httpx), and the CA bundle they verify TLS with. */
interface PythonSite {
  site: string[];
  ca: string | null;
}

const sites = new Map<string, Promise<PythonSite>>();

const SITE_PROBE = `import json, site
try:
    import certifi
    ca = certifi.where()
except Exception:
    ca = None
print(json.dumps({"site": [p for p in site.getsitepackages()], "ca": ca}))`;

/**
 * The interpreter's site directories, read once: the sandbox runs Python without `site` (-S), so the
 * bootstrap adds them itself, only while it loads the HTTP clients a code imports. Isolated mode (-I)
 * keeps the user's own site and PYTHONPATH out, as in the jail.
 */
export function pythonSite(exe: string): Promise<PythonSite> {
  const known = sites.get(exe);
  if (known) return known;
  const found = new Promise<PythonSite>((resolve) => {
    execFile(exe, ["-I", "-c", SITE_PROBE], { timeout: 10_000 }, (err, stdout) => {
      try {
        if (err) throw err;
        const v = JSON.parse(stdout.toString().trim()) as PythonSite;
        resolve({ site: v.site.filter((p) => typeof p === "string"), ca: typeof v.ca === "string" ? v.ca : null });
      } catch {
        resolve({ site: [], ca: null }); // the standard library still works; requests is then "not installed"
      }
    });
  });
  sites.set(exe, found);
  return found;
}

interface Envelope {
  ok: boolean;
  result?: unknown;
  kind?: string;
  message?: string;
  type?: string | null;
  line?: number | null;
  /** The module a refused import named. */
  module?: string;
}

/**
 * What the jail must show besides the system directories: an interpreter installed elsewhere (pyenv,
 * a virtualenv, a wrapper script) is shown read-only at its own path, with the tree it was installed in.
 */
function interpreterPaths(exe: string, ca: string | null): string[] {
  const real = realpathSync(exe);
  const outside = (p: string) => !p.startsWith("/usr/") && !/^\/(s?bin|lib(32|64|x32)?)\//.test(p);
  const paths = new Set<string>();
  for (const p of [exe, real]) if (outside(p)) paths.add(p);
  const prefix = /^(.*)\/bin\/[^/]+$/.exec(real)?.[1];
  if (prefix && outside(`${prefix}/`) && existsSync(`${prefix}/lib`)) paths.add(`${prefix}/lib`);
  // The CA bundle requests and httpx verify TLS with (Debian's certifi points into /etc/ssl): public data.
  if (ca && outside(ca) && existsSync(ca) && ![...paths].some((p) => ca.startsWith(`${p}/`))) {
    const real = realpathSync(ca);
    if (real === ca || !outside(real)) paths.add(ca);
    else paths.add(dirname(ca));
  }
  return [...paths];
}

export interface PythonOptions {
  python?: string;
  startupAllowanceMs?: number;
  /**
   * A socket of the egress proxy for this call, bound into the jail; without it the guest has no network
   * at all. The channel is closed when the call ends.
   */
  egressChannel?: () => Promise<Pick<EgressChannel, "socketPath" | "refusals" | "close"> | undefined>;
}

export async function runPython(
  code: string,
  inputs: Record<string, unknown>,
  limits: SandboxLimits,
  signal?: AbortSignal,
  options: PythonOptions = {},
): Promise<Record<string, unknown>> {
  const inputText = encodeInputs(inputs, language);
  if (signal?.aborted) throw new SandboxError("sandbox.aborted", "the run was cancelled", { language });
  const exe = await resolvePython(options.python);
  const startupMs = options.startupAllowanceMs ?? SANDBOX_STARTUP_ALLOWANCE_MS;
  const nonce = `__weft_result_${randomBytes(12).toString("hex")}__`;
  const site = await pythonSite(exe);
  const channel = await options.egressChannel?.();
  try {
    const setup = { modules: PYTHON_MODULES, site: site.site, egress: channel ? EGRESS_SOCKET : null };
    const request = `{"nonce":${JSON.stringify(nonce)},"limits":${JSON.stringify(limits)},"setup":${JSON.stringify(setup)},"code":${JSON.stringify(code)},"inputs":${inputText}}`;
    const child = await spawnJailed({
      argv: [exe, "-I", "-S", "-B", "-c", PYTHON_BOOTSTRAP],
      readOnly: interpreterPaths(exe, site.ca),
      egressSocket: channel?.socketPath,
    });
    const out = await superviseChild(child, request, nonce, limits, startupMs, signal);
    try {
      return interpret(out, nonce, limits, startupMs);
    } catch (err) {
      throw egressCause(err, channel?.refusals ?? []);
    }
  } finally {
    await channel?.close();
  }
}

/**
 * A guest that failed after the egress proxy refused one of its requests failed because of the address
 * policy: say so, with the policy's reason and how to allow the host, rather than the client library's
 * "403 Forbidden". A guest that caught the refusal and returned normally keeps its result, as in Dify.
 */
function egressCause(err: unknown, refusals: EgressRefusal[]): unknown {
  const first = refusals[0];
  if (!first || !(err instanceof SandboxError) || err.code !== "sandbox.runtime_error") return err;
  const fix =
    first.code === "http.blocked_address"
      ? "; a workflow owner can allow it with http.allowPrivate or http.allowHosts in weft.config.json"
      : "";
  return new SandboxError(
    "sandbox.egress_refused",
    `the code's request to ${first.host} was refused by Weft's network policy (${first.code}: ${first.message})${fix}. The code then failed: ${clip(err.message, 500)}`,
    { language, host: first.host, reason: first.code, line: err.line, errorType: err.details.errorType as string },
  );
}

interface ChildOutcome {
  stdout: Buffer;
  stderr: string;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  stop?: "timeout" | "startup" | "output" | "aborted";
  /** When the guest's code started, if it did. */
  startedAt?: number;
}

/** After its deadline a sleeping guest gets this long before the process is killed. */
const DEADLINE_GRACE_MS = 250;

function superviseChild(
  child: ChildProcessWithoutNullStreams,
  request: string,
  nonce: string,
  limits: SandboxLimits,
  startupMs: number,
  signal: AbortSignal | undefined,
): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = "";
    let stop: ChildOutcome["stop"];
    const kill = (why: NonNullable<ChildOutcome["stop"]>) => {
      stop ??= why;
      try {
        // The jail is its own process group; bubblewrap's death ends everything inside it.
        if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        child.kill("SIGKILL"); // the group is already gone
      }
    };
    const startedMarker = Buffer.from(`${nonce}:started\n`);
    let timer = setTimeout(() => kill("startup"), startupMs);
    let startedAt: number | undefined;
    const onAbort = () => kill("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (b: Buffer) => {
      size += b.length;
      if (size > limits.maxOutputBytes + STDOUT_SLACK) {
        kill("output");
        return;
      }
      chunks.push(b);
      if (startedAt === undefined && Buffer.concat(chunks).includes(startedMarker)) {
        startedAt = Date.now();
        clearTimeout(timer);
        timer = setTimeout(() => kill("timeout"), limits.timeoutMs + DEADLINE_GRACE_MS);
      }
    });
    child.stderr.on("data", (b: Buffer) => {
      stderr = (stderr + b.toString("utf8")).slice(-STDERR_KEEP);
    });
    // The child may exit before reading everything (a crash at startup); that is reported by 'close'.
    child.stdin.on("error", () => undefined);
    child.on("error", (err) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      reject(new SandboxError("sandbox.unavailable", `could not start the sandbox: ${err.message}`, { language }));
    });
    child.on("close", (exitCode, exitSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve({ stdout: Buffer.concat(chunks), stderr, exitCode, exitSignal, stop, startedAt });
    });
    child.stdin.end(request, "utf8");
  });
}

function interpret(
  out: ChildOutcome,
  nonce: string,
  limits: SandboxLimits,
  startupMs: number,
): Record<string, unknown> {
  if (out.stop === "timeout") return timeout(limits);
  if (out.stop === "startup") {
    throw new SandboxError(
      "sandbox.unavailable",
      `the Python sandbox did not start within ${startupMs} ms (is the machine overloaded?)`,
      { language, phase: "startup" },
    );
  }
  if (out.stop === "aborted") throw new SandboxError("sandbox.aborted", "the run was cancelled", { language });
  if (out.stop === "output") throw tooLarge(`the code wrote more than ${limits.maxOutputBytes} bytes`, limits);

  const text = out.stdout.toString("utf8");
  const marker = `\n${nonce}\n`;
  const at = text.lastIndexOf(marker);
  if (at < 0) {
    // No reply: the jail could not start, or the process was killed by a limit or crashed before it answered.
    const setup = out.startedAt === undefined ? jailSetupError(out.stderr, language) : undefined;
    if (setup) throw setup;
    const signal = guestSignal(out);
    if (signal === "SIGXCPU") return timeout(limits);
    // RLIMIT_CPU's hard limit kills with SIGKILL, a second after the soft limit's SIGXCPU.
    if (signal === "SIGKILL" && out.startedAt !== undefined && Date.now() - out.startedAt >= limits.timeoutMs)
      return timeout(limits);
    if (/MemoryError/.test(out.stderr)) {
      throw new SandboxError("sandbox.memory", `the code used more than ${limits.memoryBytes} bytes of memory`, {
        language,
        memoryBytes: limits.memoryBytes,
      });
    }
    if (signal === "SIGXFSZ") {
      throw new SandboxError("sandbox.forbidden", "writing files is not allowed in the sandbox", { language });
    }
    const how = signal ? `was killed by ${signal}` : `exited with code ${out.exitCode}`;
    throw new SandboxError(
      "sandbox.crashed",
      `the Python process ${how} without returning a result${out.stderr ? `: ${clip(out.stderr.trim(), 500)}` : ""}`,
      { language, exitCode: out.exitCode, signal },
    );
  }
  const body = text.slice(at + marker.length).trim();
  const reply = parseReply(body, language, limits.maxOutputBytes);
  if (reply.ok) return reply.result;
  const env = reply.envelope as Partial<Envelope>;
  const line = typeof env.line === "number" ? env.line : undefined;
  const errorType = env.type ?? undefined;
  const message = clip(env.message ?? "unknown error");
  const where = line ? ` (line ${line})` : "";
  switch (env.kind) {
    case "syntax":
      throw new SandboxError("sandbox.syntax_error", `${message}${where}`, { language, line, errorType });
    case "no_main":
      throw new SandboxError("sandbox.no_main", message, { language });
    case "forbidden":
      throw new SandboxError("sandbox.forbidden", message, {
        language,
        errorType,
        ...(typeof env.module === "string" ? { module: env.module } : {}),
      });
    case "memory":
      throw new SandboxError("sandbox.memory", `${message} (limit ${limits.memoryBytes} bytes)${where}`, {
        language,
        line,
        memoryBytes: limits.memoryBytes,
      });
    case "stack":
      throw new SandboxError("sandbox.memory", `stack overflow: ${message}${where}`, {
        language,
        line,
        reason: "stack",
      });
    case "output":
      throw tooLarge(message, limits);
    case "bad_result":
      throw new SandboxError("sandbox.bad_result", message, { language });
    case "crashed":
      throw new SandboxError("sandbox.crashed", message, { language });
    default:
      throw new SandboxError("sandbox.runtime_error", `${message}${where}`, { language, line, errorType });
  }
}

/** bubblewrap exits with 128 + N when the guest died of signal N. */
function guestSignal(out: ChildOutcome): string | undefined {
  if (out.exitSignal) return out.exitSignal;
  const n = (out.exitCode ?? 0) - 128;
  if (n <= 0) return undefined;
  return Object.entries(osConstants.signals).find(([, v]) => v === n)?.[0];
}

function timeout(limits: SandboxLimits): never {
  throw new SandboxError("sandbox.timeout", `the code ran longer than ${limits.timeoutMs} ms`, {
    language,
    timeoutMs: limits.timeoutMs,
  });
}

function tooLarge(message: string, limits: SandboxLimits): SandboxError {
  return new SandboxError("sandbox.output_too_large", message, { language, limit: limits.maxOutputBytes });
}
