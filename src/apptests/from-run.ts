/**
 * A case from a past run: its inputs (files as stored), the system values a chat app was given (the start
 * node re-exports them), and one check per output as it came — exact for values, the file's type for files —
 * which the user then loosens (contains, regex, a rubric) where the answer may vary.
 */
import { isFileValue } from "../eval/metrics/resolve.js";
import type { OutputCheck } from "../store/app-tests.js";
import type { RunStore } from "../store/runs.js";
import { AppTestError } from "./errors.js";

const USER_SYS = ["query", "files"] as const;

function checkFor(output: string, v: unknown): OutputCheck {
  const files = Array.isArray(v) && v.length > 0 && v.every(isFileValue) ? v : isFileValue(v) ? [v] : undefined;
  const ext = files?.[0] ? String((files[0] as { extension?: string }).extension ?? "") : "";
  if (files && ext) return { output, check: "file_type", extension: ext };
  return { output, check: "exact", value: v };
}

export interface CapturedRun {
  inputs: Record<string, unknown>;
  sys?: Record<string, unknown>;
  expect: OutputCheck[];
}

export async function captureRun(runs: RunStore, appId: string, runId: string): Promise<CapturedRun> {
  const run = await runs.getRun(runId);
  if (!run || (run.appId !== undefined && run.appId !== appId))
    throw new AppTestError(
      "tests.run_not_found",
      `no run ${runId} of app ${appId} (see \`weft runs\` or the app's Logs)`,
      {
        runId,
        appId,
      },
    );
  if (run.status !== "succeeded" && run.status !== "partial-succeeded")
    throw new AppTestError(
      "tests.run_not_finished",
      `run ${runId} ended ${run.status}; a case is made from a run that succeeded (its outputs are the expectation)`,
      { runId, status: run.status },
    );
  const start = run.workflow.nodes.find((n) => n.type === "start" && !n.parentId);
  const commit = start ? (await runs.committed(runId)).get(start.id) : undefined;
  const sys: Record<string, unknown> = {};
  for (const name of USER_SYS) {
    const v = commit?.outputs[`sys.${name}`];
    if (v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0) && v !== "") sys[name] = v;
  }
  return {
    inputs: run.inputs,
    ...(Object.keys(sys).length ? { sys } : {}),
    expect: Object.entries(run.outputs ?? {}).map(([k, v]) => checkFor(k, v)),
  };
}
