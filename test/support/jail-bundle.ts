import { spawn } from "node:child_process";
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

/**
 * The jail tests' host program (jail-host.ts) as one self-contained file in a world-readable directory, so
 * that an unprivileged user can run it wherever the checkout lives (a clone under /root is not readable by
 * others).
 */
export type HostReply = Record<string, any>;

export interface HostCall {
  /** The host's reply once it has ended. */
  reply: Promise<HostReply>;
  /** Lets a probe started with `hold: true` finish (it reads its stdin to the end). */
  release(): void;
}

export interface JailHost {
  /** Run one request as this user (`uid` undefined: as the test's own user). */
  call(req: Record<string, unknown>, uid?: number): Promise<HostReply>;
  /** Start one, for a probe that waits until released. */
  start(req: Record<string, unknown>, uid?: number): HostCall;
  dispose(): void;
}

export async function bundleJailHost(): Promise<JailHost> {
  const dir = mkdtempSync(join(tmpdir(), "weft-jail-host-"));
  chmodSync(dir, 0o755);
  const file = join(dir, "jail-host.mjs");
  await build({
    entryPoints: [new URL("./jail-host.ts", import.meta.url).pathname],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: file,
    logLevel: "error",
    banner: { js: "import { createRequire as __cr } from 'node:module'; const require = __cr(import.meta.url);" },
  });
  chmodSync(file, 0o644);
  const start = (req: Record<string, unknown>, uid?: number): HostCall => {
    let release: () => void = () => {};
    const reply = new Promise<HostReply>((resolve, reject) => {
      const child = spawn(process.execPath, [file], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
        stdio: ["pipe", "pipe", "pipe"],
        ...(uid === undefined ? {} : { uid, gid: uid }),
      });
      let out = "";
      let err = "";
      child.stdout.on("data", (b: Buffer) => {
        out += b.toString("utf8");
      });
      child.stderr.on("data", (b: Buffer) => {
        err += b.toString("utf8");
      });
      child.on("error", reject);
      child.on("close", (code, signal) => {
        const line = out.trim().split("\n").pop() ?? "";
        try {
          resolve({ ...JSON.parse(line), exit: { code, signal } });
        } catch {
          reject(new Error(`jail host ended ${signal ?? code} without a reply: ${out}${err}`));
        }
      });
      child.stdin.on("error", () => undefined);
      child.stdin.write(`${JSON.stringify(req)}\n`);
      if (req.hold) release = () => child.stdin.end();
      else child.stdin.end();
    });
    return { reply, release: () => release() };
  };
  return {
    start,
    call: (req, uid) => start(req, uid).reply,
    dispose: () => rmSync(dir, { recursive: true, force: true }),
  };
}
