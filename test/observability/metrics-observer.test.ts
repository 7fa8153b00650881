/**
 * The metrics observer's node attempt histogram: each attempt is observed once under its node type and outcome
 * (ok, or error when the attempt throws, which still reaches the caller), in seconds the attempt took.
 */
import { describe, expect, it } from "vitest";
import { Metrics } from "../../src/observability/metrics.js";

const attempt = (nodeType: string) => ({ runId: "r1", key: "k", nodeId: "n", nodeType, title: "N", attempt: 1 });

async function series(m: Metrics, name: string) {
  const got = await m.registry.getSingleMetric("weft_node_duration_seconds")!.get();
  return got.values.filter((v) => (v as { metricName?: string }).metricName === name);
}

describe("MetricsObserver.attempt", () => {
  it("observes each attempt under its type and outcome, rethrowing what the attempt threw", async () => {
    const m = new Metrics();
    const o = m.observer("worker");
    await o.attempt(attempt("code"), async () => ({ outputs: {} }));
    await o.attempt(attempt("code"), async () => ({ outputs: {} }));
    const boom = new Error("boom");
    await expect(o.attempt(attempt("http-request"), () => Promise.reject(boom))).rejects.toBe(boom);
    const counts = await series(m, "weft_node_duration_seconds_count");
    expect(counts.map((v) => [v.labels, v.value])).toEqual([
      [{ type: "code", outcome: "ok" }, 2],
      [{ type: "http-request", outcome: "error" }, 1],
    ]);
    for (const s of await series(m, "weft_node_duration_seconds_sum")) {
      expect(s.value).toBeGreaterThanOrEqual(0);
      expect(s.value).toBeLessThan(5);
    }
    // The text exposition keeps the label order of prom-client's own timer (type, then outcome).
    expect(await m.text()).toContain('weft_node_duration_seconds_count{type="code",outcome="ok"} 2');
  });
});
