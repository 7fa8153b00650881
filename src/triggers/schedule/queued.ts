import { submitRun } from "../../queue/index.js";
import type { TriggerRunStarter } from "../start-run.js";

/**
 * With Redis configured, a tick's run is a queued run: any `weft worker` takes it, and a worker killed under it
 * hands it to another as every queued run. The job id is the run id, so dispatching a tick again (its claimer
 * died between the claim and the submit) never queues a second run.
 */
export function queuedStarter(redisUrl?: string): TriggerRunStarter {
  return {
    async start(wf, o) {
      await submitRun({ runId: o.runId, appId: o.appId, workflow: wf, inputs: o.inputs, sys: o.sys }, { redisUrl });
      return { runId: o.runId };
    },
  };
}
