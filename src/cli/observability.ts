import type { WeftConfig } from "../config/weft-config.js";
import type { RunObserver } from "../engine/observer.js";
import { WeftError } from "../ir/errors.js";
import type { ExecServices } from "../ir/services.js";
import { openTracing, type RunTracing } from "../observability/index.js";
import { createEventLog, type EventLog, logFormatOf } from "../observability/log.js";
import { combineObservers, Metrics } from "../observability/metrics.js";
import { RunLogObserver } from "../observability/run-log-observer.js";
import { CliError } from "./output.js";

/** What a long-running process (`weft serve`, `weft worker`) observes itself with. */
export interface ProcessObservability {
  log: EventLog;
  metrics: Metrics;
  tracing?: RunTracing;
  /** Tracing (outermost, so logs carry its trace id), the run log, metrics. */
  observer: RunObserver;
  /** Model, tool, HTTP … calls as spans (tracing on) and model calls metered. */
  wrap<S extends Partial<ExecServices>>(services: S): S;
  /** A failure the process survives (a store write, a lost run): an error event, counted as a store error. */
  onFailure(what: string, err: unknown): void;
  shutdown(): Promise<void>;
}

export async function openProcessObservability(
  cfg: WeftConfig,
  o: { name: string; source: string; logFormat?: string },
): Promise<ProcessObservability> {
  let log: EventLog;
  try {
    log = createEventLog(logFormatOf(o.logFormat), { name: o.name });
  } catch (e) {
    if (e instanceof WeftError) throw new CliError(e.code, e.message);
    throw e;
  }
  const prices = cfg.observability?.prices;
  const metrics = new Metrics({ prices });
  const tracing = await openTracing(cfg, o.source);
  const observer = combineObservers([
    tracing?.observer,
    new RunLogObserver(log, { source: o.source, traceId: tracing?.traceId, prices }),
    metrics.observer(o.source),
  ])!;
  return {
    log,
    metrics,
    tracing,
    observer,
    wrap: (services) => metrics.meter(tracing ? tracing.wrap(services) : services),
    onFailure: (what, err) => {
      const code = err instanceof WeftError ? err.code : "internal";
      const operation = storeOperation(what, code);
      if (operation) metrics.storeErrors.inc({ operation });
      const message = `${what}: ${err instanceof Error ? err.message : String(err)}`;
      log.error(
        { event: operation ? "store.error" : "server.error", errorCode: code, ...(operation ? { operation } : {}) },
        message,
      );
    },
    shutdown: async () => {
      await tracing?.shutdown();
    },
  };
}

/**
 * The store operation a hub failure was (a few fixed names, so metric labels stay bounded; a run id is in
 * the message, never in a label), or undefined when the store was not what failed.
 */
function storeOperation(what: string, code: string): string | undefined {
  if (/^writing run events/.test(what)) return "append_events";
  if (/from the database/.test(what)) return "read_run";
  if (/could not be recorded|storing its record/.test(what)) return "write_run";
  if (/leases|claiming runs/.test(what)) return "leases";
  return code.startsWith("store.") ? "other" : undefined;
}
