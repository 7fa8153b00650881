import { queueSpanAttributes, type RunTracing, type TraceCarrier } from "../../observability/index.js";
import { submitRun } from "../../queue/index.js";
import type { TriggerRunStarter } from "../start-run.js";

/**
 * With Redis configured, a tick's run is a queued run: any `weft worker` takes it, and a worker killed under it
 * hands it to another as every queued run. The job id is the run id, so dispatching a tick again (its claimer
 * died between the claim and the submit) never queues a second run.
 */
export function queuedStarter(redisUrl?: string, tracing?: Pick<RunTracing, "produce">): TriggerRunStarter {
  return {
    async start(wf, o) {
      const submit = (trace?: TraceCarrier) =>
        submitRun({ runId: o.runId, appId: o.appId, workflow: wf, inputs: o.inputs, sys: o.sys, trace }, { redisUrl });
      // Tracing on: the tick's producer span starts the run's trace, the worker's run span continues it.
      if (tracing) await tracing.produce(`queue ${wf.name}`, queueSpanAttributes(o.runId), submit, { newRun: o.runId });
      else await submit();
      return { runId: o.runId };
    },
  };
}
