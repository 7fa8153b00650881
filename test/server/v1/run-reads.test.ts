/**
 * What a blocking /v1 workflow run reads back: the service record it has just stored is not read again, neither
 * by the request nor by the end-of-segment listener (which only chat turns need), the run's record is the one the
 * engine stored, and the run's attempts are not read when it ends (nothing in the server uses the result's trace). On PostgreSQL each read is a round trip.
 */
import { describe, expect, it } from "vitest";
import { buildWorkflow } from "../../support/build.js";
import { v1ServerPerFile } from "../../support/per-file.js";

const s = v1ServerPerFile();

const echo = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "text", type: "text-input", required: true }] },
    { id: "agg", type: "variable-aggregator", output_type: "string", variables: [["start", "text"]] },
    { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["agg", "output"] }] },
  ],
  edges: [
    ["start", "agg"],
    ["agg", "end"],
  ],
});

describe("/v1 workflow run reads", () => {
  it("a blocking run answers without reading back its run record, its service record or its attempts", async () => {
    const { key } = await s.app("reads", echo);
    const service = s.deps.stores.service;
    const read = service.serviceRun.bind(service);
    let reads = 0;
    service.serviceRun = (runId) => {
      reads++;
      return read(runId);
    };
    const runs = s.deps.runs;
    const readAttempts = runs.attempts.bind(runs);
    const readRun = runs.getRun.bind(runs);
    let attemptReads = 0;
    let runReads = 0;
    runs.attempts = (runId) => {
      attemptReads++;
      return readAttempts(runId);
    };
    runs.getRun = (runId) => {
      runReads++;
      return readRun(runId);
    };
    try {
      const res = await fetch(`${s.v1}/workflows/run`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ inputs: { text: "hi" }, response_mode: "blocking", user: "u1" }),
      });
      const body = (await res.json()) as { workflow_run_id: string; data: { status: string; outputs: unknown } };
      expect(res.status).toBe(200);
      expect(body.data.status).toBe("succeeded");
      expect(body.data.outputs).toEqual({ out: "hi" });
      expect(reads).toBe(0);
      expect(attemptReads).toBe(0);
      expect(runReads).toBe(0);
      // The record is stored all the same: the run's detail (which reads it) names its end user's run.
      const detail = await fetch(`${s.v1}/workflows/run/${body.workflow_run_id}`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(((await detail.json()) as { status: string }).status).toBe("succeeded");
      expect(reads).toBe(1);
    } finally {
      service.serviceRun = read;
      runs.attempts = readAttempts;
      runs.getRun = readRun;
    }
  });
});
