// What the OS jail costs a Python code node: the same trivial node run through the sandbox (bubblewrap,
// seccomp, the bootstrap) and, as the baseline in the same run, the bootstrap started bare the way Python
// nodes ran before the jail. Prints medians, the ratio and the difference per call.
// Usage: npx tsx bench/sandbox-jail.ts [reps]
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createSandbox, resolvePython } from "../src/sandbox/index.js";
import { DEFAULT_LIMITS } from "../src/sandbox/limits.js";
import { PYTHON_BOOTSTRAP } from "../src/sandbox/python-bootstrap.js";
import { PYTHON_MODULES } from "../src/sandbox/python-modules.js";

const reps = Number(process.argv[2] ?? 30);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
const code = "def main(x):\n    return {'y': x * 2}\n";

async function bare(exe: string): Promise<void> {
  const nonce = `__weft_result_${randomBytes(12).toString("hex")}__`;
  const setup = { modules: PYTHON_MODULES, site: [], egress: null };
  const request = JSON.stringify({ nonce, limits: DEFAULT_LIMITS, setup, code, inputs: { x: 21 } });
  await new Promise<void>((resolve, reject) => {
    const child = spawn(exe, ["-I", "-S", "-B", "-c", PYTHON_BOOTSTRAP], { env: {}, stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (b: Buffer) => {
      out += b.toString("utf8");
    });
    child.on("close", () => (out.includes('"y": 42') || out.includes('"y":42') ? resolve() : reject(new Error(out))));
    child.stdin.end(request);
  });
}

async function main() {
  const exe = await resolvePython();
  const sandbox = createSandbox();
  const jailed = async () => {
    const r = await sandbox.run({ language: "python3", code, inputs: { x: 21 } });
    if ((r as { y?: number }).y !== 42) throw new Error(JSON.stringify(r));
  };
  for (let i = 0; i < 3; i++) {
    await jailed();
    await bare(exe);
  }
  const times = { jail: [] as number[], bare: [] as number[] };
  // Interleaved, so machine noise falls on both alike.
  for (let i = 0; i < reps; i++) {
    let t = performance.now();
    await jailed();
    times.jail.push(performance.now() - t);
    t = performance.now();
    await bare(exe);
    times.bare.push(performance.now() - t);
  }
  const j = median(times.jail);
  const b = median(times.bare);
  console.log(`python node, jailed (bubblewrap + seccomp): median ${j.toFixed(1)} ms over ${reps}`);
  console.log(`python node, bare bootstrap (baseline):     median ${b.toFixed(1)} ms`);
  console.log(`jail/bare: ${(j / b).toFixed(2)}x, +${(j - b).toFixed(1)} ms per call`);
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
