import { execFile, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SANDBOX_STARTUP_ALLOWANCE_MS, type SandboxLimits } from "../ir/services.js";
import { clip, SandboxError } from "./errors.js";
import { encodeInputs, parseReply } from "./json.js";
import { PYTHON_BOOTSTRAP } from "./python-bootstrap.js";

/**
 * Python code nodes run in a fresh `python3` process per call: isolated mode, no site, an empty
 * environment, a new empty working directory, and the bootstrap's rlimits and audit hook. Node
 * enforces the wall clock and the byte budget of everything the child writes. The user's
 * `timeoutMs` starts when the bootstrap reports that the code starts (`<nonce>:started`), so a slow
 * interpreter start on a loaded machine is never charged to the user's code.
 */

const language = "python3" as const;
/** Room for the reply envelope and the guest's stderr beyond the result budget. */
const STDOUT_SLACK = 64 * 1024;
const STDERR_KEEP = 16 * 1024;

const resolved = new Map<string, Promise<string>>();

/**
 * `python3` is often a shim (pyenv, asdf) that needs the host environment to find the real
 * interpreter; the sandbox runs with an empty environment, so it resolves the real binary once.
 */
export function resolvePython(command = process.env.WEFT_PYTHON ?? "python3"): Promise<string> {
  const known = resolved.get(command);
  if (known) return known;
  const found = new Promise<string>((resolve, reject) => {
    // Audit hooks (the sandbox boundary) exist from Python 3.8 on.
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

interface Envelope {
  ok: boolean;
  result?: unknown;
  kind?: string;
  message?: string;
  type?: string | null;
  line?: number | null;
}

export async function runPython(
  code: string,
  inputs: Record<string, unknown>,
  limits: SandboxLimits,
  signal?: AbortSignal,
  options: { python?: string; startupAllowanceMs?: number } = {},
): Promise<Record<string, unknown>> {
  const inputText = encodeInputs(inputs, language);
  if (signal?.aborted) throw new SandboxError("sandbox.aborted", "the run was cancelled", { language });
  const exe = await resolvePython(options.python);
  const startupMs = options.startupAllowanceMs ?? SANDBOX_STARTUP_ALLOWANCE_MS;
  const nonce = `__weft_result_${randomBytes(12).toString("hex")}__`;
  const request = `{"nonce":${JSON.stringify(nonce)},"limits":${JSON.stringify(limits)},"code":${JSON.stringify(code)},"inputs":${inputText}}`;
  const cwd = await mkdtemp(join(tmpdir(), "weft-py-"));
  try {
    const out = await spawnChild(exe, cwd, request, nonce, limits, startupMs, signal);
    return interpret(out, nonce, limits, startupMs);
  } finally {
    await rm(cwd, { recursive: true, force: true }).catch(() => undefined);
  }
}

interface ChildOutcome {
  stdout: Buffer;
  stderr: string;
  exitCode: number | null;
  exitSignal: NodeJS.Signals | null;
  stop?: "timeout" | "startup" | "output" | "aborted";
}

/** After its deadline a sleeping guest gets this long before the process is killed. */
const DEADLINE_GRACE_MS = 250;

function spawnChild(
  exe: string,
  cwd: string,
  request: string,
  nonce: string,
  limits: SandboxLimits,
  startupMs: number,
  signal: AbortSignal | undefined,
): Promise<ChildOutcome> {
  return new Promise((resolve, reject) => {
    // Its own process group, so a kill also ends anything it started (a wrapper's children).
    const child = spawn(exe, ["-I", "-S", "-B", "-c", PYTHON_BOOTSTRAP], {
      cwd,
      env: {},
      stdio: ["pipe", "pipe", "pipe"],
      windowsHide: true,
      detached: process.platform !== "win32",
    });
    const chunks: Buffer[] = [];
    let size = 0;
    let stderr = "";
    let stop: ChildOutcome["stop"];
    const kill = (why: NonNullable<ChildOutcome["stop"]>) => {
      stop ??= why;
      try {
        if (child.pid !== undefined && process.platform !== "win32") process.kill(-child.pid, "SIGKILL");
        else child.kill("SIGKILL");
      } catch {
        child.kill("SIGKILL"); // the group is already gone
      }
    };
    const startedMarker = Buffer.from(`${nonce}:started\n`);
    let timer = setTimeout(() => kill("startup"), startupMs);
    let started = false;
    const onAbort = () => kill("aborted");
    signal?.addEventListener("abort", onAbort, { once: true });

    child.stdout.on("data", (b: Buffer) => {
      size += b.length;
      if (size > limits.maxOutputBytes + STDOUT_SLACK) {
        kill("output");
        return;
      }
      chunks.push(b);
      if (!started && Buffer.concat(chunks).includes(startedMarker)) {
        started = true;
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
      reject(new SandboxError("sandbox.unavailable", `could not start python: ${err.message}`, { language }));
    });
    child.on("close", (exitCode, exitSignal) => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      resolve({ stdout: Buffer.concat(chunks), stderr, exitCode, exitSignal, stop });
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
    // No reply: the process was killed by a limit or crashed before it could answer.
    if (out.exitSignal === "SIGXCPU" || (out.exitSignal === "SIGKILL" && !out.stop)) return timeout(limits);
    if (/MemoryError/.test(out.stderr)) {
      throw new SandboxError("sandbox.memory", `the code used more than ${limits.memoryBytes} bytes of memory`, {
        language,
        memoryBytes: limits.memoryBytes,
      });
    }
    if (out.exitSignal === "SIGXFSZ") {
      throw new SandboxError("sandbox.forbidden", "writing files is not allowed in the sandbox", { language });
    }
    const how = out.exitSignal ? `was killed by ${out.exitSignal}` : `exited with code ${out.exitCode}`;
    throw new SandboxError(
      "sandbox.crashed",
      `the Python process ${how} without returning a result${out.stderr ? `: ${clip(out.stderr.trim(), 500)}` : ""}`,
      { language, exitCode: out.exitCode, signal: out.exitSignal },
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
      throw new SandboxError("sandbox.forbidden", message, { language, errorType });
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

function timeout(limits: SandboxLimits): never {
  throw new SandboxError("sandbox.timeout", `the code ran longer than ${limits.timeoutMs} ms`, {
    language,
    timeoutMs: limits.timeoutMs,
  });
}

function tooLarge(message: string, limits: SandboxLimits): SandboxError {
  return new SandboxError("sandbox.output_too_large", message, { language, limit: limits.maxOutputBytes });
}
