import { type Context, context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { AttemptObservation, RunObservation, RunObserver, RunOutcome } from "../engine/observer.js";
import { noRedaction, type Redactor, redactorFor } from "../engine/redact.js";
import type { NodeResult } from "../ir/registry.js";
import type { TracingSettings } from "./config.js";

/** Weft's own span attributes (app, run, node); GenAI ones follow the OpenTelemetry semantic conventions. */
export const WEFT = {
  appId: "weft.app.id",
  runId: "weft.run.id",
  workflow: "weft.workflow.name",
  source: "weft.run.source",
  resumed: "weft.run.resumed",
  status: "weft.run.status",
  nodeId: "weft.node.id",
  nodeType: "weft.node.type",
  nodeKey: "weft.node.key",
  attempt: "weft.node.attempt",
  errorCode: "weft.error.code",
} as const;

/** The run's redactor travels in the context, so spans opened by services inside the run scrub its secrets. */
const REDACTOR = Symbol.for("weft.redactor");
export function redactorIn(ctx: Context = context.active()): Redactor {
  return (ctx.getValue(REDACTOR) as Redactor | undefined) ?? noRedaction;
}

/** The W3C `traceparent` of a context, to carry a trace across processes (queued runs). */
export interface TraceCarrier {
  traceparent?: string;
  tracestate?: string;
}
const propagator = new W3CTraceContextPropagator();
const setter = { set: (c: TraceCarrier, k: string, v: string) => Object.assign(c, { [k]: v }) };
const getter = {
  get: (c: TraceCarrier, k: string) => (c as Record<string, string | undefined>)[k],
  keys: (c: TraceCarrier) => Object.keys(c),
};
export function injectTrace(ctx: Context = context.active()): TraceCarrier {
  const carrier: TraceCarrier = {};
  propagator.inject(ctx, carrier, setter);
  return carrier;
}
export function extractTrace(carrier: TraceCarrier | undefined): Context {
  return carrier ? propagator.extract(context.active(), carrier, getter) : context.active();
}

let contextManagerInstalled = false;
function installContextManager(): void {
  if (contextManagerInstalled) return;
  // Spans of model/tool calls find their node's span through the async context.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  contextManagerInstalled = true;
}

export interface Tracing {
  tracer: Tracer;
  settings: TracingSettings;
  /** The engine hook: a span per run and per node attempt. */
  observer(source: string): RunObserver;
  /** Export what is buffered and stop (on shutdown). */
  shutdown(): Promise<void>;
  flush(): Promise<void>;
}

/** Start exporting traces as the settings say; undefined when tracing is off (nothing is loaded or wrapped). */
export function startTracing(settings: TracingSettings): Tracing | undefined {
  if (!settings.enabled) return undefined;
  installContextManager();
  const exporterConfig = { url: settings.endpoint, headers: settings.headers };
  const exporter =
    settings.protocol === "http/json" ? new JsonExporter(exporterConfig) : new ProtoExporter(exporterConfig);
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": settings.serviceName }),
    spanProcessors: [new BatchSpanProcessor({ exporter })],
  });
  const tracer = provider.getTracer("weft");
  return {
    tracer,
    settings,
    observer: (source) => new TracingObserver(tracer, source),
    shutdown: () => provider.shutdown(),
    flush: () => provider.forceFlush(),
  };
}

function codeOf(e: unknown): string {
  const code = (e as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : "run.error";
}

/** Ends a span with the error of a failed call: its code, its (redacted) message. */
export function failSpan(span: Span, e: unknown, redact: Redactor): void {
  const message = redact(e instanceof Error ? e.message : String(e));
  span.setAttribute(WEFT.errorCode, codeOf(e));
  span.setAttribute("error.type", codeOf(e));
  span.setStatus({ code: SpanStatusCode.ERROR, message });
}

export class TracingObserver implements RunObserver {
  constructor(
    private readonly tracer: Tracer,
    private readonly source: string,
  ) {}

  run<T extends RunOutcome>(info: RunObservation, body: () => Promise<T>): Promise<T> {
    const redact = redactorFor(info.secrets);
    const ctx = context.active().setValue(REDACTOR, redact);
    const attributes = {
      [WEFT.runId]: info.runId,
      [WEFT.workflow]: info.workflowName,
      [WEFT.source]: this.source,
      [WEFT.resumed]: info.resumed,
      ...(info.appId ? { [WEFT.appId]: info.appId } : {}),
    };
    return this.tracer.startActiveSpan(
      `run ${info.workflowName}`,
      { kind: SpanKind.INTERNAL, attributes },
      ctx,
      async (span) => {
        try {
          const r = await body();
          span.setAttribute(WEFT.status, r.status);
          if (r.error) {
            span.setAttribute(WEFT.errorCode, r.error.code);
            span.setStatus({ code: SpanStatusCode.ERROR, message: redact(r.error.message) });
          }
          return r;
        } catch (e) {
          failSpan(span, e, redact);
          throw e;
        } finally {
          span.end();
        }
      },
    );
  }

  attempt(info: AttemptObservation, body: () => Promise<NodeResult>) {
    const attributes = {
      [WEFT.runId]: info.runId,
      [WEFT.nodeId]: info.nodeId,
      [WEFT.nodeType]: info.nodeType,
      [WEFT.nodeKey]: info.key,
      [WEFT.attempt]: info.attempt,
    };
    return this.tracer.startActiveSpan(`node ${info.nodeType} ${info.nodeId}`, { attributes }, async (span) => {
      try {
        const r = await body();
        if (r.usage) {
          span.setAttribute("gen_ai.usage.input_tokens", r.usage.promptTokens);
          span.setAttribute("gen_ai.usage.output_tokens", r.usage.completionTokens);
        }
        return r;
      } catch (e) {
        failSpan(span, e, redactorIn());
        throw e;
      } finally {
        span.end();
      }
    });
  }
}
