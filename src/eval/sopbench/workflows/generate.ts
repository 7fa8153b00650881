/**
 * Writes `<domain>.json` from the builders: `npx tsx src/eval/sopbench/workflows/generate.ts`.
 * The files are then formatted with the repo's biome settings so `npm run lint` accepts them.
 * test/sopbench/workflows.test.ts fails when a JSON file and its builder disagree.
 */
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { WORKFLOW_BUILDERS } from "./builders/index.js";
import { referenceWorkflowPath } from "./index.js";

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const written: string[] = [];
  for (const [domain, build] of Object.entries(WORKFLOW_BUILDERS)) {
    writeFileSync(referenceWorkflowPath(domain), `${JSON.stringify(build(), null, 2)}\n`);
    written.push(referenceWorkflowPath(domain));
  }
  const biome = fileURLToPath(new URL("../../../../node_modules/.bin/biome", import.meta.url));
  if (existsSync(biome)) execFileSync(biome, ["format", "--write", ...written], { stdio: "inherit" });
  else process.stderr.write("biome not found: the JSON files are written but not formatted\n");
  for (const f of written) process.stdout.write(`wrote ${f}\n`);
}
