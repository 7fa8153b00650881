import { Counter, Histogram, Registry } from "prom-client";
import type { AttemptObservation, RunObservation, RunObserver, RunOutcome } from "../engine/observer.js";
import type { NodeResult } from "../ir/registry.js";
import type { ExecServices, LlmRequest } from "../ir/services.js";
import type { PriceTable } from "./cost.js";
import { UsageTally } from "./usage-tally.js";

/**
 * The Prometheus metrics of one process (`weft serve` or `weft worker`), in their own registry so tests and
 * several servers in one process never share counts.
 */
export class Metrics {
  readonly registry = new Registry();
  /** Prices per model (weft.config.json `observability.prices`): app costs are counted when set. */
  constructor(readonly o: { prices?: PriceTable } = {}) {}
  readonly runsStarted = new Counter({
    name: "weft_runs_started_total",
    help: "Workflow runs (and resumed run segments) started",
    labelNames: ["app", "source"] as const,
    registers: [this.registry],
  });
  readonly runsFinished = new Counter({
    name: "weft_runs_finished_total",
    help: "Workflow run segments ended, by final status",
    labelNames: ["app", "status", "source"] as const,
    registers: [this.registry],
  });
  readonly nodeDuration = new Histogram({
    name: "weft_node_duration_seconds",
    help: "Duration of node attempts by node type",
    labelNames: ["type", "outcome"] as const,
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 2.5, 10, 30, 120],
    registers: [this.registry],
  });
  readonly modelTokens = new Counter({
    name: "weft_model_tokens_total",
    help: "Model tokens used, by model and direction (input/output)",
    labelNames: ["model", "direction"] as const,
    registers: [this.registry],
  });
  readonly modelLatency = new Histogram({
    name: "weft_model_request_duration_seconds",
    help: "Model call latency by model",
    labelNames: ["model", "outcome"] as const,
    buckets: [0.1, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
    registers: [this.registry],
  });
  readonly appTokens = new Counter({
    name: "weft_app_tokens_total",
    help: "Model tokens used by each app's runs, by direction (input/output)",
    labelNames: ["app", "direction"] as const,
    registers: [this.registry],
  });
  readonly appCost = new Counter({
    name: "weft_app_cost_total",
    help: "Cost of each app's model tokens by the configured price table (models without a price count nothing)",
    labelNames: ["app", "currency"] as const,
    registers: [this.registry],
  });
  readonly queueWait = new Histogram({
    name: "weft_queue_wait_seconds",
    help: "Time a queued job waited from submission until a worker took it",
    labelNames: ["job"] as const,
    buckets: [0.01, 0.05, 0.25, 1, 5, 30, 120, 600],
    registers: [this.registry],
  });
  readonly storeErrors = new Counter({
    name: "weft_store_errors_total",
    help: "Run store operations that failed",
    labelNames: ["operation"] as const,
    registers: [this.registry],
  });
  readonly httpDuration = new Histogram({
    name: "weft_http_request_duration_seconds",
    help: "HTTP request duration by route pattern and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.005, 0.025, 0.1, 0.5, 1, 5, 30],
    registers: [this.registry],
  });

  /** The engine hook that counts runs and times node attempts. */
  observer(source: string): RunObserver {
    return new MetricsObserver(this, source);
  }

  /** Model services timed and their tokens counted per model. */
  meter<S extends Partial<ExecServices>>(services: S): S {
    const llm = services.llm;
    if (!llm) return services;
    const chat = async (req: LlmRequest) => {
      const end = this.modelLatency.startTimer({ model: req.model.name });
      try {
        const r = await llm.chat(req);
        end({ outcome: "ok" });
        this.modelTokens.inc({ model: req.model.name, direction: "input" }, r.usage.promptTokens);
        this.modelTokens.inc({ model: req.model.name, direction: "output" }, r.usage.completionTokens);
        return r;
      } catch (e) {
        end({ outcome: "error" });
        throw e;
      }
    };
    const metered = new Proxy(llm, {
      get: (t, k) =>
        k === "chat" ? chat : typeof Reflect.get(t, k) === "function" ? Reflect.get(t, k).bind(t) : Reflect.get(t, k),
    });
    return { ...services, llm: metered };
  }

  text(): Promise<string> {
    return this.registry.metrics();
  }
}

class MetricsObserver implements RunObserver {
  private readonly tally: UsageTally;
  constructor(
    private readonly m: Metrics,
    private readonly source: string,
  ) {
    this.tally = new UsageTally(m.o.prices);
  }

  async run<T extends RunOutcome>(info: RunObservation, body: () => Promise<T>): Promise<T> {
    const app = info.appId ?? "";
    this.m.runsStarted.inc({ app, source: this.source });
    this.tally.open(info.runId, info.workflow);
    let status = "failed";
    try {
      const r = await body();
      status = r.status;
      // A run the store could not keep (unreachable, busy) ends with the store's error code.
      if (r.error?.code.startsWith("store.")) this.m.storeErrors.inc({ operation: "run" });
      return r;
    } finally {
      this.m.runsFinished.inc({ app, status, source: this.source });
      const usage = this.tally.close(info.runId);
      this.m.appTokens.inc({ app, direction: "input" }, usage.inputTokens);
      this.m.appTokens.inc({ app, direction: "output" }, usage.outputTokens);
      if (usage.cost !== undefined) this.m.appCost.inc({ app, currency: usage.currency ?? "" }, usage.cost);
    }
  }

  async attempt(info: AttemptObservation, body: () => Promise<NodeResult>): Promise<NodeResult> {
    // Timed as prom-client's startTimer does (same clock, same seconds), without its two closures and label merge
    // per attempt: every node attempt of every run passes here.
    const start = process.hrtime();
    try {
      const r = await body();
      this.observeAttempt(info.nodeType, "ok", start);
      this.tally.add(info.runId, info.nodeId, r);
      return r;
    } catch (e) {
      this.observeAttempt(info.nodeType, "error", start);
      throw e;
    }
  }

  private observeAttempt(type: string, outcome: string, start: [number, number]): void {
    const delta = process.hrtime(start);
    this.m.nodeDuration.observe({ type, outcome }, delta[0] + delta[1] / 1e9);
  }
}

/** Several observers as one: the first wraps the second, and so on. */
export function combineObservers(list: Array<RunObserver | undefined>): RunObserver | undefined {
  const present = list.filter((o): o is RunObserver => o !== undefined);
  if (present.length <= 1) return present[0];
  return {
    run: (info, body) => present.reduceRight<typeof body>((inner, o) => () => o.run(info, inner), body)(),
    attempt: (info, body) => present.reduceRight<typeof body>((inner, o) => () => o.attempt(info, inner), body)(),
  };
}
