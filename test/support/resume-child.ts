// Child process for the kill -9 resume test: runs (or resumes) a chain of slow nodes against a SQLite
// store and appends every executed node id to a log file, so the parent can count executions.
import { appendFileSync } from "node:fs";
import { z } from "zod";
import { resumeRun, runWorkflow } from "../../src/engine/run.js";
import { nodeCatalogue } from "../../src/nodes/index.js";
import { openStores } from "../../src/store/open.js";
import { buildWorkflow } from "./build.js";

const [mode, dbPath, logPath, runId] = process.argv.slice(2) as [string, string, string, string];

const nodeTypes = nodeCatalogue.with({
  type: "test-logged-step",
  label: "logged step",
  category: "transform",
  purpose: "test only",
  configSchema: z.object({ ms: z.number(), n: z.number() }).loose(),
  outputs: () => [{ name: "value", type: "number" }],
  inputs: () => [],
  ports: () => ["source"],
  async execute(ctx) {
    appendFileSync(logPath, `${ctx.node.id}\n`);
    await new Promise((r) => setTimeout(r, Number(ctx.config.ms)));
    const prev = ctx.read([`s${Number(ctx.config.n) - 1}`, "value"]);
    return { outputs: { value: (prev.found ? Number(prev.value) : 0) + Number(ctx.config.n) } };
  },
});

const N = 12;
const wf = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [] },
    ...Array.from({ length: N }, (_, i) => ({ id: `s${i + 1}`, type: "test-logged-step", ms: 120, n: i + 1 })),
    { id: "end", type: "end", outputs: [{ variable: "total", value_selector: [`s${N}`, "value"] }] },
  ],
  edges: [
    ["start", "s1"],
    ...Array.from({ length: N - 1 }, (_, i) => [`s${i + 1}`, `s${i + 2}`] as [string, string]),
    [`s${N}`, "end"],
  ],
});

const stores = await openStores(dbPath);
const store = stores.runs;
const result =
  mode === "run" ? await runWorkflow(wf, { store, runId, nodeTypes }) : await resumeRun(runId, { store, nodeTypes });
process.stdout.write(JSON.stringify({ status: result.status, outputs: result.outputs }));
await stores.close();
