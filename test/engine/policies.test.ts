// The parts of a node execution that the scheduler composes, each checked alone.
import { describe, expect, it } from "vitest";
import { errorStrategyOutcome } from "../../src/engine/error-strategy.js";
import { gateRejections, gatesOf } from "../../src/engine/gates.js";
import { retriesError, retryPolicy } from "../../src/engine/retry.js";
import { withNodeTimeout } from "../../src/engine/timeout.js";
import { NodeExecutionError } from "../../src/ir/errors.js";

const live = new AbortController().signal;

describe("retry policy", () => {
  it("reads Dify's retry_config; gates get at least two retries", () => {
    expect(retryPolicy({}, 0)).toEqual({ maxErrorRetries: 0, intervalMs: 0, maxGateRetries: 0 });
    const cfg = { retry_config: { retry_enabled: true, max_retries: 3, retry_interval: 250 } };
    expect(retryPolicy(cfg, 0)).toEqual({ maxErrorRetries: 3, intervalMs: 250, maxGateRetries: 0 });
    expect(retryPolicy(cfg, 1).maxGateRetries).toBe(3);
    expect(retryPolicy({ retry_config: { retry_enabled: false, max_retries: 5 } }, 1)).toMatchObject({
      maxErrorRetries: 0,
      maxGateRetries: 2,
    });
    expect(retryPolicy({ retry_config: { retry_enabled: true, max_retries: -2 } }, 0).maxErrorRetries).toBe(0);
  });

  it("retries an error while retries remain, never a cancelled run or a gate that gave up", () => {
    const p = retryPolicy({ retry_config: { retry_enabled: true, max_retries: 2 } }, 0);
    const err = new Error("transient");
    expect(retriesError(p, 0, err, live)).toBe(true);
    expect(retriesError(p, 1, err, live)).toBe(true);
    expect(retriesError(p, 2, err, live)).toBe(false);
    const cancelled = new AbortController();
    cancelled.abort();
    expect(retriesError(p, 0, err, cancelled.signal)).toBe(false);
    expect(retriesError(p, 0, new NodeExecutionError("gate.failed", "no", "n"), live)).toBe(false);
  });
});

describe("error strategy", () => {
  const info = { code: "node.error", message: "boom" };
  it("fails the run without a strategy", () => {
    expect(errorStrategyOutcome({}, info)).toBeUndefined();
    expect(errorStrategyOutcome({ error_strategy: "none" }, info)).toBeUndefined();
  });

  it("fail-branch routes to its port with the error as outputs", () => {
    expect(errorStrategyOutcome({ error_strategy: "fail-branch" }, info)).toEqual({
      outputs: { error_message: "boom", error_type: "node.error" },
      port: "fail-branch",
      route: "fail-branch",
    });
  });

  it("default-value takes every edge with the defaults, JSON strings parsed for non-string types", () => {
    const cfg = {
      error_strategy: "default-value",
      default_value: [
        { key: "text", type: "string", value: "[1]" },
        { key: "list", type: "array[number]", value: "[1, 2]" },
        { key: "n", type: "number", value: "not json" },
      ],
    };
    expect(errorStrategyOutcome(cfg, info)).toEqual({
      outputs: { error_message: "boom", error_type: "node.error", text: "[1]", list: [1, 2], n: "not json" },
      port: "source",
    });
  });
});

describe("gates", () => {
  it("collects the message of every failing gate", () => {
    const gates = gatesOf({
      gates: [
        { output: "a", check: "not_empty", message: "a is empty" },
        { output: "b", check: "max_length", value: 2, message: "b too long" },
      ],
    });
    expect(gateRejections(gates, { a: "x", b: "ok" })).toEqual([]);
    expect(gateRejections(gates, { a: "", b: "long" })).toEqual(["a is empty", "b too long"]);
    expect(gatesOf({ gates: "nonsense" })).toEqual([]);
  });
});

describe("node timeout", () => {
  it("fails with node.timeout and aborts the node's signal; no limit leaves the execution alone", async () => {
    const never = new Promise<string>(() => {});
    const ac = new AbortController();
    await expect(withNodeTimeout(never, 0.02, "slow", ac)).rejects.toMatchObject({
      code: "node.timeout",
      nodeId: "slow",
    });
    expect(ac.signal.aborted).toBe(true);
    const free = new AbortController();
    await expect(withNodeTimeout(Promise.resolve("v"), undefined, "n", free)).resolves.toBe("v");
    await expect(withNodeTimeout(Promise.resolve("v"), 0, "n", free)).resolves.toBe("v");
    await expect(withNodeTimeout(Promise.resolve("v"), 5, "n", free)).resolves.toBe("v");
    expect(free.signal.aborted).toBe(false);
  });
});
