// Start-up of the `weft` command against a bare `node -e 0`, alternating them in one run:
// `weft --help` (no command module loaded), `weft validate` of the sample (one command module), `weft run` of
// the sample (wall time and CPU of the process and its children, read from /proc), and,
// given a BASELINE checkout (e.g. `git worktree add --detach /tmp/base main` with node_modules linked),
// the same commands through that checkout's bin/weft. Usage: npx tsx bench/startup.ts [BASELINE] [reps=15]
// Every node process loads the certificates NODE_EXTRA_CA_CERTS names before any JavaScript runs (about 45 ms of
// CPU for a system bundle): a fixed cost in both sides of the ratio. Where it is set, `node -e 0` and `weft run`
// are also measured without it, and both ratios are printed.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dirname, "..");
const baseline =
  process.argv[2] && existsSync(join(process.argv[2], "bin/weft")) ? resolve(process.argv[2]) : undefined;
const reps = Number(process.argv[baseline ? 3 : 2] ?? 15);
const sample = join(root, "examples/word-stats.yml");
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

const cases: Record<string, [string, string[]]> = {
  "node -e 0": [process.execPath, ["-e", "0"]],
  "weft --help": [join(root, "bin/weft"), ["--help"]],
  "weft validate": [join(root, "bin/weft"), ["validate", sample]],
  "weft run": [join(root, "bin/weft"), ["run", sample, "--input", "text=the quick brown fox", "--db", ":memory:"]],
};
const extraCa = process.env.NODE_EXTRA_CA_CERTS;
const withoutCa = (() => {
  const env = { ...process.env };
  delete env.NODE_EXTRA_CA_CERTS;
  return env;
})();
if (extraCa) {
  cases["node -e 0, no CA"] = [process.execPath, ["-e", "0"]];
  cases["weft run, no CA"] = cases["weft run"]!;
}
if (baseline) {
  cases["baseline --help"] = [join(baseline, "bin/weft"), ["--help"]];
  cases["baseline validate"] = [join(baseline, "bin/weft"), ["validate", sample]];
  cases["baseline run"] = [join(baseline, "bin/weft"), cases["weft run"]![1]];
}
/** CPU seconds of waited-for children so far (Linux: cutime + cstime of /proc/self/stat, in clock ticks). */
const childCpuMs = () => {
  const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1]!.split(" ");
  return (Number(fields[13]) + Number(fields[14])) * 10;
};
const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
const run = ([cmd, args]: [string, string[]], cpuOut?: number[], key?: string) => {
  const c0 = childCpuMs();
  const t0 = performance.now();
  try {
    execFileSync(cmd, args, { stdio: "ignore", env: key?.endsWith(", no CA") ? withoutCa : process.env });
  } catch (e) {
    // validate exits 0 on the sample; anything else is a broken command, not a timing.
    throw new Error(`${cmd} ${args.join(" ")} failed: ${(e as Error).message}`);
  }
  const wall = performance.now() - t0;
  cpuOut?.push(childCpuMs() - c0);
  return wall;
};
for (const [k, c] of Object.entries(cases)) run(c, undefined, k); // warm-up: file cache, a stale build rebuilt
const times: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let r = 0; r < reps; r++) for (const [k, c] of Object.entries(cases)) times[k]!.push(run(c, cpu[k], k));

const node = median(times["node -e 0"]!);
for (const [k, v] of Object.entries(times)) {
  const m = median(v);
  const c = median(cpu[k]!);
  const nodeCpu = median(cpu["node -e 0"]!);
  console.log(
    `${k.padEnd(18)} median ${m.toFixed(0).padStart(5)} ms wall ${(m / node).toFixed(2)}× node, ` +
      `${c.toFixed(0).padStart(5)} ms CPU ${(c / nodeCpu).toFixed(2)}× node`,
  );
}
if (baseline) {
  const ratio = (k: string) => (median(times[`baseline ${k}`]!) / median(times[`weft ${k}`]!)).toFixed(2);
  console.log(`baseline/this wall: --help ${ratio("--help")}×, validate ${ratio("validate")}×, run ${ratio("run")}×`);
  // CPU (all threads, and children) is what the start-up goal is stated in, and steadier on a shared machine.
  const cpuRatio = (k: string) => (median(cpu[`weft ${k}`]!) / median(cpu[`baseline ${k}`]!)).toFixed(2);
  console.log(
    `this/baseline CPU: --help ${cpuRatio("--help")}×, validate ${cpuRatio("validate")}×, run ${cpuRatio("run")}×`,
  );
}
console.log(`weft --help: ${(median(times["weft --help"]!) / node).toFixed(2)}× node -e 0 (target ≤ 5)`);
console.log(
  `weft run CPU: ${(median(cpu["weft run"]!) / median(cpu["node -e 0"]!)).toFixed(2)}× node -e 0 (target ≤ 4)` +
    (extraCa ? ` with NODE_EXTRA_CA_CERTS=${extraCa}` : ""),
);
if (extraCa) {
  const ratio = median(cpu["weft run, no CA"]!) / median(cpu["node -e 0, no CA"]!);
  console.log(`weft run CPU without NODE_EXTRA_CA_CERTS: ${ratio.toFixed(2)}× node -e 0 without it`);
}
