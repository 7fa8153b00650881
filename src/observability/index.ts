import type { WeftConfig } from "../config/weft-config.js";
import type { RunObserver } from "../engine/observer.js";
import type { ExecServices } from "../ir/services.js";
import { tracingSettings } from "./config.js";

/** What a command that runs workflows needs of tracing: nothing at all when it is off. */
export interface RunTracing {
  observer: RunObserver;
  wrap<S extends Partial<ExecServices>>(services: S): S;
  shutdown(): Promise<void>;
}

/**
 * Tracing as configured (weft.config.json `observability.tracing`, overridden by OTEL_*), or undefined when
 * off; OpenTelemetry is only loaded when it is on.
 */
export async function openTracing(cfg: WeftConfig, source: string): Promise<RunTracing | undefined> {
  const settings = tracingSettings(cfg.observability?.tracing);
  if (!settings.enabled) return undefined;
  const [{ startTracing }, { tracedServices }] = await Promise.all([
    import("./tracing.js"),
    import("./traced-services.js"),
  ]);
  const t = startTracing(settings)!;
  return {
    observer: t.observer(source),
    wrap: (services) => tracedServices(t.tracer, services, settings.captureContent),
    shutdown: () => t.shutdown(),
  };
}
