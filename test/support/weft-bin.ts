// The `weft` command as users run it: bin/weft on the built JavaScript (dist/, built by the test setup).
import { type ChildProcess, execFile, spawn, spawnSync } from "node:child_process";
import { join } from "node:path";

export const WEFT_BIN = join(import.meta.dirname, "../../bin/weft");

/**
 * process.env without what would point the CLI at the developer's own setup: every WEFT_ variable and,
 * unless kept, every provider key (…_API_KEY) and `extra` names such as OLLAMA_HOST.
 */
export function cleanEnv(o: { keepApiKeys?: boolean; extra?: string[] } = {}): NodeJS.ProcessEnv {
  const drop = (k: string) =>
    k.startsWith("WEFT_") || (!o.keepApiKeys && k.endsWith("_API_KEY")) || (o.extra ?? []).includes(k);
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !drop(k)));
}

/** How one file calls the CLI; `tail` goes after every call's own arguments (`--db`, `--config`). */
export interface WeftCall {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
  /** Milliseconds; default one minute. */
  timeout?: number;
  tail?: string[];
}

export interface WeftResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  out: string;
  err: string;
}

const DEFAULT_TIMEOUT = 60_000;

/** One `weft` call to its end; a failing exit is a result, not an error. */
export function runWeft(args: string[], call: WeftCall = {}): WeftResult {
  const r = spawnSync(WEFT_BIN, [...args, ...(call.tail ?? [])], {
    cwd: call.cwd,
    env: call.env,
    input: call.input,
    encoding: "utf8",
    timeout: call.timeout ?? DEFAULT_TIMEOUT,
  });
  return { code: r.status, signal: r.signal, out: r.stdout, err: r.stderr };
}

/** A file's `weft(args, input?)`: every call with the same directory, environment and tail. */
export function weftCli(call: WeftCall): (args: string[], input?: string) => WeftResult {
  return (args, input) => runWeft(args, input === undefined ? call : { ...call, input });
}

/** `runWeft` without blocking the test process (which may be serving what the CLI talks to). */
export function runWeftAsync(args: string[], call: WeftCall = {}): Promise<WeftResult> {
  const opts = { cwd: call.cwd, env: call.env, encoding: "utf8" as const, timeout: call.timeout ?? DEFAULT_TIMEOUT };
  return new Promise((resolve) => {
    const child = execFile(WEFT_BIN, [...args, ...(call.tail ?? [])], opts, (e, out, err) =>
      resolve({ code: e ? Number((e as { code?: number }).code ?? 1) : 0, signal: e?.signal ?? null, out, err }),
    );
    if (call.input !== undefined) child.stdin?.end(call.input);
  });
}

/** The stdout of a `weft` call that must succeed; a failing exit throws with its stderr. */
export function weftOut(args: string[], call: WeftCall = {}): string {
  const r = runWeft(args, call);
  if (r.code !== 0) throw new Error(`weft ${args.join(" ")} exited ${r.code}: ${r.err}`);
  return r.out;
}

/** A `weft serve` (or `weft worker`…) child process that has said where it serves. */
export interface WeftServeProcess {
  proc: ChildProcess;
  url: string;
  /** Everything it printed on stdout up to "serving on". */
  out: string;
  /** What it printed on stderr so far. */
  err(): string;
  /** Sends the signal (SIGTERM unless told) and waits for the exit; nothing when it has already exited. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** `weft …args` as a user starts a server, in its own process; resolves once it prints its address. */
export async function spawnWeftServe(
  args: string[],
  o: { cwd: string; env?: NodeJS.ProcessEnv },
): Promise<WeftServeProcess> {
  const proc = spawn(WEFT_BIN, args, { cwd: o.cwd, env: o.env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  proc.stderr!.on("data", (b) => {
    err += String(b);
  });
  const stop = async (signal: NodeJS.Signals = "SIGTERM") => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill(signal);
    await exited;
  };
  try {
    await new Promise<void>((res, rej) => {
      proc.stdout!.on("data", (b) => {
        out += String(b);
        if (/serving on http/.test(out)) res();
      });
      proc.once("exit", (code) => rej(new Error(`weft ${args[0]} exited with ${code}: ${out}${err}`)));
    });
  } catch (e) {
    await stop();
    throw e;
  }
  return { proc, url: /serving on (http:\/\/\S+)/.exec(out)![1]!, out, err: () => err, stop };
}
