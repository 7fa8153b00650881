// The kill tests' child processes run a workflow until they hold a group or batch that is committed but not
// yet acknowledged, print `holding`, and wait; the parent kills them there (SIGKILL) and reads which nodes
// were acknowledged (`acked NODE` lines) before the kill.
import { spawn } from "node:child_process";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "../..");
const tsx = `file://${join(root, "node_modules/tsx/dist/esm/index.mjs")}`;

/** Runs `test/support/<script>` with `args` until it prints `holding`, kills it, returns the acknowledged nodes. */
export async function killWhenHolding(script: string, args: string[]): Promise<string[]> {
  const child = spawn(process.execPath, ["--import", tsx, join(root, "test/support", script), ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const exited = new Promise((r) => child.on("exit", r));
  await new Promise<void>((res, rej) => {
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("holding\n")) res();
    });
    child.on("exit", () => rej(new Error(`${script} ended without holding a commit: ${out}${err}`)));
  });
  child.kill("SIGKILL");
  await exited;
  return out
    .split("\n")
    .filter((l) => l.startsWith("acked "))
    .map((l) => l.slice(6));
}
