/**
 * Writes `<domain>.json` from the builders: `npx tsx src/eval/sopbench/workflows/generate.ts`.
 * test/sopbench/workflows.test.ts fails when a JSON file and its builder disagree.
 */
import { writeFileSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { WORKFLOW_BUILDERS } from "./builders/index.js";
import { referenceWorkflowPath } from "./index.js";

export function serialiseWorkflow(wf: unknown): string {
  return `${JSON.stringify(wf, null, 2)}\n`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const [domain, build] of Object.entries(WORKFLOW_BUILDERS)) {
    writeFileSync(referenceWorkflowPath(domain), serialiseWorkflow(build()));
    process.stdout.write(`wrote ${referenceWorkflowPath(domain)}\n`);
  }
}
