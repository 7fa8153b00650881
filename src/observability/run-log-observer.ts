import type { AttemptObservation, RunObservation, RunObserver, RunOutcome } from "../engine/observer.js";
import type { NodeResult } from "../ir/registry.js";
import type { PriceTable } from "./cost.js";
import type { EventLog } from "./log.js";
import { UsageTally } from "./usage-tally.js";

/**
 * One log line per run segment that ends: finished (succeeded, partial, paused) at info, failed at error,
 * interrupted (it resumes later) at warn, a store failure as its own `store.error` event; each with the run, app and trace ids,
 * its time, tokens and cost. Messages are the run's own, already redacted by the engine.
 */
export class RunLogObserver implements RunObserver {
  private readonly tally: UsageTally;
  constructor(
    private readonly log: EventLog,
    private readonly o: { source: string; traceId?: () => string | undefined; prices?: PriceTable },
  ) {
    this.tally = new UsageTally(o.prices);
  }

  async run<T extends RunOutcome>(info: RunObservation, body: () => Promise<T>): Promise<T> {
    const started = Date.now();
    const traceId = this.o.traceId?.();
    this.tally.open(info.runId, info.workflow);
    const ids = {
      runId: info.runId,
      ...(info.appId ? { appId: info.appId } : {}),
      ...(traceId ? { traceId } : {}),
      workflow: info.workflowName,
      source: this.o.source,
      resumed: info.resumed,
    };
    let r: T;
    try {
      r = await body();
    } catch (e) {
      this.tally.close(info.runId);
      const code = (e as { code?: unknown })?.code;
      this.log.error(
        {
          event: "run.failed",
          ...ids,
          durationMs: Date.now() - started,
          errorCode: typeof code === "string" ? code : "run.error",
        },
        `run ${info.runId} failed: ${e instanceof Error ? e.message : String(e)}`,
      );
      throw e;
    }
    const u = this.tally.close(info.runId);
    const fields = {
      ...ids,
      status: r.status,
      durationMs: Date.now() - started,
      inputTokens: u.inputTokens,
      outputTokens: u.outputTokens,
      ...(u.cost !== undefined ? { cost: u.cost, currency: u.currency } : {}),
      ...(r.error ? { errorCode: r.error.code } : {}),
    };
    if (r.error?.code.startsWith("store."))
      this.log.error({ ...fields, event: "store.error" }, `run ${info.runId}: the store failed: ${r.error.message}`);
    if (r.status === "failed")
      this.log.error({ event: "run.failed", ...fields }, `run ${info.runId} failed: ${r.error?.message ?? ""}`);
    // Interrupted is not failed: the run resumes from its commits (a worker stopping, the store away a while).
    else if (r.status === "interrupted")
      this.log.warn(
        { event: "run.interrupted", ...fields },
        `run ${info.runId} interrupted: ${r.error?.message ?? ""}`,
      );
    else this.log.info({ event: "run.finished", ...fields }, `run ${info.runId} ${r.status}`);
    return r;
  }

  async attempt(info: AttemptObservation, body: () => Promise<NodeResult>): Promise<NodeResult> {
    const r = await body();
    this.tally.add(info.runId, info.nodeId, r);
    return r;
  }
}
