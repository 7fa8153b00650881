// A throwaway Redis for queue tests and benchmarks: no persistence, a free loopback port, stopped by pid.
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { createConnection } from "node:net";
import { freePort } from "./postgres.js";

export const hasRedis = existsSync("/usr/bin/redis-server");

export interface RedisServer {
  url: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

function answersPing(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = createConnection({ host: "127.0.0.1", port }, () => s.write("PING\r\n"));
    s.once("data", (d) => {
      s.destroy();
      res(String(d).startsWith("+PONG"));
    });
    s.once("error", () => res(false));
  });
}

export async function startRedis(): Promise<RedisServer> {
  const port = await freePort();
  const proc = spawn(
    "redis-server",
    ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
    { stdio: "ignore" },
  );
  const kill = () => proc.kill("SIGKILL");
  process.once("exit", kill);
  const t0 = Date.now();
  while (!(await answersPing(port))) {
    if (proc.exitCode !== null || Date.now() - t0 > 30_000) throw new Error(`redis-server did not start on ${port}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    url: `redis://127.0.0.1:${port}`,
    proc,
    async stop() {
      process.removeListener("exit", kill);
      if (proc.exitCode === null && proc.signalCode === null) {
        const gone = new Promise((r) => proc.once("exit", r));
        proc.kill("SIGKILL");
        await gone;
      }
    },
  };
}
