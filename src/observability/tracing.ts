import { createHash } from "node:crypto";
import { type Context, context, type Span, SpanKind, SpanStatusCode, type Tracer, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import { OTLPTraceExporter as JsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as ProtoExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchSpanProcessor, type IdGenerator, RandomIdGenerator, TracerProvider } from "@opentelemetry/sdk-trace";
import type { AttemptObservation, RunObservation, RunObserver, RunOutcome } from "../engine/observer.js";
import { noRedaction, type Redactor, redactorFor } from "../engine/redact.js";
import type { NodeResult } from "../ir/registry.js";
import type { TracingSettings } from "./config.js";
import type { PriceTable, RunUsage } from "./cost.js";
import { UsageTally } from "./usage-tally.js";

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
  inputTokens: "weft.run.usage.input_tokens",
  outputTokens: "weft.run.usage.output_tokens",
  totalTokens: "weft.run.usage.total_tokens",
  cost: "weft.run.cost",
  currency: "weft.run.cost.currency",
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

/**
 * The ids of a run's first root span (its run span, or the producer span of a queued run) follow from the
 * run id, so a later segment of the run (resumed after a pause, taken over by another worker, in another
 * process) can link to the original trace without storing anything. Every other id is random.
 */
export function rootIdsOf(runId: string): { traceId: string; spanId: string } {
  const h = createHash("sha256").update(`weft-run:${runId}`).digest("hex");
  return { traceId: h.slice(0, 32), spanId: h.slice(32, 48) };
}

/** Random ids, except for the one span started while `next` is set (span ids are drawn before trace ids). */
class RunIdGenerator implements IdGenerator {
  private readonly random = new RandomIdGenerator();
  private next?: { traceId?: string; spanId?: string };
  generateTraceId(): string {
    const id = this.next?.traceId;
    if (this.next) this.next.traceId = undefined;
    return id ?? this.random.generateTraceId();
  }
  generateSpanId(): string {
    const id = this.next?.spanId;
    if (this.next) this.next.spanId = undefined;
    return id ?? this.random.generateSpanId();
  }
  /** Starts a span with the run's root ids when it is a root (no active span): synchronous, so nothing interleaves. */
  asRunRoot<T>(runId: string, ctx: Context, start: () => T): T {
    if (trace.getSpanContext(ctx)) return start();
    this.next = rootIdsOf(runId);
    try {
      return start();
    } finally {
      this.next = undefined;
    }
  }
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
  /** The engine hook: a span per run and per node attempt (runs carry their token usage and cost). */
  observer(source: string, prices?: PriceTable): RunObserver;
  /** A span started by `start` gets the run's root ids if it is a root span (see rootIdsOf). */
  asRunRoot<T>(runId: string, start: () => T): T;
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
  const ids = new RunIdGenerator();
  const provider = new TracerProvider({
    resource: resourceFromAttributes({ "service.name": settings.serviceName }),
    spanProcessors: [
      new BatchSpanProcessor({
        exporter,
        ...(settings.scheduleDelayMs !== undefined ? { scheduledDelayMillis: settings.scheduleDelayMs } : {}),
      }),
    ],
    idGenerator: ids,
  });
  const tracer = provider.getTracer("weft");
  return {
    tracer,
    settings,
    observer: (source, prices) => new TracingObserver(tracer, source, prices, ids),
    asRunRoot: (runId, start) => ids.asRunRoot(runId, context.active(), start),
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

/** The run span's usage attributes: this segment's tokens, and its cost when a price table is configured. */
function usageAttributes(u: RunUsage): Record<string, number | string> {
  return {
    [WEFT.inputTokens]: u.inputTokens,
    [WEFT.outputTokens]: u.outputTokens,
    [WEFT.totalTokens]: u.totalTokens,
    ...(u.cost !== undefined ? { [WEFT.cost]: u.cost, [WEFT.currency]: u.currency ?? "" } : {}),
  };
}

export class TracingObserver implements RunObserver {
  private readonly tally: UsageTally;
  constructor(
    private readonly tracer: Tracer,
    private readonly source: string,
    prices?: PriceTable,
    private readonly ids?: RunIdGenerator,
  ) {
    this.tally = new UsageTally(prices);
  }

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
    // A later segment links to the run's first trace (its root ids follow from the run id).
    const links = info.resumed ? [{ context: { ...rootIdsOf(info.runId), traceFlags: 1 } }] : [];
    const start = () =>
      this.tracer.startActiveSpan(
        `run ${info.workflowName}`,
        { kind: SpanKind.INTERNAL, attributes, links },
        ctx,
        (span) => this.runIn(span, info, redact, body),
      );
    return info.resumed || !this.ids ? start() : this.ids.asRunRoot(info.runId, ctx, start);
  }

  private async runIn<T extends RunOutcome>(
    span: Span,
    info: RunObservation,
    redact: Redactor,
    body: () => Promise<T>,
  ): Promise<T> {
    this.tally.open(info.runId, info.workflow);
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
      span.setAttributes(usageAttributes(this.tally.close(info.runId)));
      span.end();
    }
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
        this.tally.add(info.runId, info.nodeId, r);
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
