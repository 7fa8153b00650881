import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { loadWorkflowFile } from "../dsl/load.js";
import type { Diagnostic } from "../ir/diagnostics.js";
import type { Workflow } from "../ir/workflow.js";
import { CliError, EXIT } from "./output.js";

export interface LoadedWorkflow {
  workflow: Workflow;
  warnings: Diagnostic[];
  format: "dify" | "weft";
}

/** Read Dify YAML or Weft JSON, whichever the file holds. */
export async function readWorkflow(path: string): Promise<LoadedWorkflow> {
  if (!existsSync(path)) throw new CliError("file.not_found", `no such file: ${path}`, EXIT.usage);
  return loadWorkflowFile(path);
}

export function writeOut(path: string | undefined, text: string): void {
  if (!path || path === "-") {
    process.stdout.write(text.endsWith("\n") ? text : `${text}\n`);
    return;
  }
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
