import { Counter, Histogram, Registry } from "prom-client";
import type { AttemptObservation, RunObservation, RunObserver, RunOutcome } from "../engine/observer.js";
import type { NodeResult } from "../ir/registry.js";
import type { ExecServices, LlmRequest } from "../ir/services.js";

/**
 * The Prometheus metrics of one process (`weft serve` or `weft worker`), in their own registry so tests and
 * several servers in one process never share counts.
 */
export class Metrics {
  readonly registry = new Registry();
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
  constructor(
    private readonly m: Metrics,
    private readonly source: string,
  ) {}

  async run<T extends RunOutcome>(info: RunObservation, body: () => Promise<T>): Promise<T> {
    const app = info.appId ?? "";
    this.m.runsStarted.inc({ app, source: this.source });
    let status = "failed";
    try {
      const r = await body();
      status = r.status;
      return r;
    } finally {
      this.m.runsFinished.inc({ app, status, source: this.source });
    }
  }

  async attempt(info: AttemptObservation, body: () => Promise<NodeResult>): Promise<NodeResult> {
    const end = this.m.nodeDuration.startTimer({ type: info.nodeType });
    try {
      const r = await body();
      end({ outcome: "ok" });
      return r;
    } catch (e) {
      end({ outcome: "error" });
      throw e;
    }
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
