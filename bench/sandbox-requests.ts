// What `import requests` costs a Python code node (issue 35 item 10): the same sandbox, three nodes — a
// trivial one (the baseline, in the same run), one that imports requests (loads the client, the codecs and
// the loopback relay to the egress proxy), and one that also GETs a loopback server through the proxy.
// Prints medians, ratios to the baseline and the difference per call.
// Usage: npx tsx bench/sandbox-requests.ts [reps]
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { createSandbox } from "../src/sandbox/index.js";
import { GuardedHttpService } from "../src/tools/http.js";

const reps = Number(process.argv[2] ?? 15);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const server = createServer((_req, res) => res.end('{"ok":true}'));
await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
const port = (server.address() as AddressInfo).port;
const http = new GuardedHttpService({ allowHosts: ["127.0.0.1"] });
const sandbox = createSandbox({ egress: (h) => http.vet(h) });

const cases: Array<[string, string]> = [
  ["trivial node (baseline)", "def main(x):\n    return {'y': x * 2}\n"],
  ["import requests", "import requests\ndef main(x):\n    return {'y': x * 2}\n"],
  [
    "import requests + one GET through the proxy",
    `import requests\ndef main(x):\n    return {'y': requests.get('http://127.0.0.1:${port}/').json()['ok'] and x * 2}\n`,
  ],
];
const times = new Map<string, number[]>(cases.map(([name]) => [name, []]));
for (let i = 0; i < reps + 1; i++) {
  for (const [name, code] of cases) {
    const t = performance.now();
    const r = (await sandbox.run({ language: "python3", code, inputs: { x: 21 } })) as { y?: number };
    if (r.y !== 42) throw new Error(`${name}: ${JSON.stringify(r)}`);
    if (i > 0) times.get(name)?.push(performance.now() - t); // the first round warms caches
  }
}
const base = median(times.get(cases[0]![0])!);
for (const [name] of cases) {
  const m = median(times.get(name)!);
  console.log(
    `${name.padEnd(46)} median ${m.toFixed(0).padStart(5)} ms  ×${(m / base).toFixed(2)}  +${(m - base).toFixed(0)} ms`,
  );
}
server.close();
process.exit(0);
