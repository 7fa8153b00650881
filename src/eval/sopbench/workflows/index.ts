import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { type Workflow, WorkflowSchema } from "../../../ir/workflow.js";
import { SopBenchError } from "../errors.js";

/** Where the hand-written reference workflows live (Weft JSON, one per SOP-Bench domain). */
export const REFERENCE_WORKFLOW_DIR = fileURLToPath(new URL(".", import.meta.url));

export function referenceWorkflowPath(domain: string): string {
  return fileURLToPath(new URL(`./${domain}.json`, import.meta.url));
}

/** The domain's reference workflow: deterministic nodes and SOP-Bench tool calls only, no LLM. */
export function loadReferenceWorkflow(domain: string): Workflow {
  const path = referenceWorkflowPath(domain);
  if (!/^[a-z0-9_]+$/.test(domain) || !existsSync(path))
    throw new SopBenchError("sopbench.unknown_domain", `No reference workflow for domain "${domain}"`, {
      domain,
      path,
    });
  const parsed = WorkflowSchema.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success)
    throw new SopBenchError(
      "sopbench.data",
      `Reference workflow ${path} is not valid Weft JSON: ${parsed.error.message}`,
      {
        path,
      },
    );
  return parsed.data;
}
