import { versionNeededBy } from "../../src/dsl/dify/defaults.js";
import type { Workflow } from "../../src/ir/workflow.js";

/**
 * The workflow as it comes back from our own Dify export: the same, but for the DSL version it records, which
 * is the one the export writes (the version of what we write, not the imported file's: issue 36 item 7).
 */
export function asExported(wf: Workflow): Workflow {
  const dify = (wf.meta?.dify ?? {}) as Record<string, unknown>;
  return { ...wf, meta: { ...wf.meta, dify: { ...dify, version: versionNeededBy(wf.nodes.map((n) => n.type)) } } };
}

/** A Dify file's text with its top-level `version:` line as our export writes it. */
export function withExportVersion(text: string, version: string): string {
  return text.replace(/^version: .*$/m, `version: ${version}`);
}
