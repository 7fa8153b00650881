import { type RunOptions, type RunResult, runWorkflow } from "../engine/run.js";
import { WeftError } from "../ir/errors.js";
import type { RunStore } from "../store/runs.js";
import type { Lowered } from "./lower.js";

export interface ArtifactVersionView {
  version: number;
  value: unknown;
  /** Frame key of the commit (loop round, iteration item). */
  key: string;
  createdAt: number;
}

export interface ArtifactHistory {
  artifact: string;
  /** The IR value that holds it. */
  selector: string[];
  /** Committed versions, oldest first (one per loop round or re-run). */
  versions: ArtifactVersionView[];
  /** Outputs the gates rejected before a version was committed, with the gate's message. */
  rejected: Array<{ attempt: number; value: unknown; reason: string }>;
}

const pathValue = (v: unknown, path: readonly string[]) =>
  path.reduce<unknown>((x, k) => (x && typeof x === "object" ? (x as Record<string, unknown>)[k] : undefined), v);

/**
 * An artifact's versions in a run of a compiled workflow: the run store keeps every committed output
 * version; this maps the model's artifact name to the IR output (and the path inside it) and reads them,
 * plus the attempts the gates rejected.
 */
export async function artifactHistory(
  store: RunStore,
  runId: string,
  lowered: Lowered,
  artifact: string,
): Promise<ArtifactHistory> {
  const selector = lowered.selectors[artifact];
  if (!selector)
    throw new WeftError("compile.unknown_artifact", `the compiled workflow has no artifact "${artifact}"`, {
      artifact,
    });
  const [nodeId, output, ...path] = selector as [string, string, ...string[]];
  const versions = (await store.artifacts(runId, nodeId))
    .filter((a) => a.name === output)
    .sort((a, b) => a.version - b.version)
    .map((a) => ({ version: a.version, value: pathValue(a.value, path), key: a.key, createdAt: a.createdAt }));
  const rejected = (await store.attempts(runId))
    .filter((a) => a.status === "gate-rejected" && a.nodeId === nodeId)
    .map((a) => ({ attempt: a.attempt, value: pathValue(a.outputs?.[output], path), reason: a.error?.message ?? "" }));
  return { artifact, selector, versions, rejected };
}

/** Run a compiled workflow on the engine (gates and retry-with-feedback are the engine's). */
export function runCompiled(lowered: Lowered, opts: RunOptions = {}): Promise<RunResult> {
  return runWorkflow(lowered.workflow, opts);
}
