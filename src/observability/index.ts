import type { RunObserver } from "../engine/observer.js";
import type { ExecServices } from "../ir/services.js";
import { type ObservabilityConfig, tracingSettings } from "./config.js";
import type { TraceCarrier } from "./tracing.js";

export type { TraceCarrier } from "./tracing.js";

/** What a command that runs workflows needs of tracing: nothing at all when it is off. */
export interface RunTracing {
  observer: RunObserver;
  wrap<S extends Partial<ExecServices>>(services: S): S;
  /** The trace id of the active span (a run's, inside an observer), for log lines. */
  traceId(): string | undefined;
  /**
   * Runs `fn` in a producer span (a run put on a queue): `fn` gets the span's W3C context to carry in the
   * job, so the worker's run span is its child in the same trace.
   */
  produce<T>(
    name: string,
    attributes: Record<string, string>,
    fn: (carrier: TraceCarrier) => Promise<T>,
    /** A new run's first segment: the span takes the run's root ids, which its later segments link to. */
    o?: { newRun?: string },
  ): Promise<T>;
  /** Runs `fn` inside the trace a job carried (none: a trace of its own). */
  continueTrace<T>(carrier: TraceCarrier | undefined, fn: () => Promise<T>): Promise<T>;
  shutdown(): Promise<void>;
}

/**
 * Tracing as configured (weft.config.json `observability.tracing`, overridden by OTEL_*), or undefined when
 * off; OpenTelemetry is only loaded when it is on.
 */
export async function openTracing(
  cfg: { observability?: ObservabilityConfig },
  source: string,
): Promise<RunTracing | undefined> {
  const settings = tracingSettings(cfg.observability?.tracing);
  if (!settings.enabled) return undefined;
  const [{ startTracing, injectTrace, extractTrace }, { tracedServices }, api] = await Promise.all([
    import("./tracing.js"),
    import("./traced-services.js"),
    import("@opentelemetry/api"),
  ]);
  const t = startTracing(settings)!;
  return {
    observer: t.observer(source, cfg.observability?.prices),
    wrap: (services) => tracedServices(t.tracer, services, settings.captureContent),
    traceId: () => api.trace.getActiveSpan()?.spanContext().traceId,
    produce: (name, attributes, fn, o) => {
      const start = () =>
        t.tracer.startActiveSpan(name, { kind: api.SpanKind.PRODUCER, attributes }, async (span) => {
          try {
            return await fn(injectTrace());
          } catch (e) {
            span.setStatus({ code: api.SpanStatusCode.ERROR, message: e instanceof Error ? e.message : String(e) });
            throw e;
          } finally {
            span.end();
          }
        });
      return o?.newRun ? t.asRunRoot(o.newRun, start) : start();
    },
    continueTrace: (carrier, fn) => api.context.with(extractTrace(carrier), fn),
    shutdown: () => t.shutdown(),
  };
}

/** The producer span's attributes of a run put on the queue (OpenTelemetry messaging conventions). */
export function queueSpanAttributes(runId: string): Record<string, string> {
  return {
    "weft.run.id": runId,
    "messaging.system": "bullmq",
    "messaging.operation.type": "send",
    "messaging.destination.name": "weft-runs",
  };
}
