/** What a node that failed for good produces under Dify's `error_strategy`, instead of failing the run. */
export interface ErrorStrategyOutcome {
  outputs: Record<string, unknown>;
  /** The port recorded in the commit. */
  port: "fail-branch" | "source";
  /** The port routed on: fail-branch takes its edge; default-value takes every outgoing edge, as Dify does. */
  route?: "fail-branch";
}

/** Coerce a Dify default_value entry (strings are JSON-parsed for non-string types). */
function defaultValue(entry: { type: string; value: unknown }): unknown {
  if (typeof entry.value === "string" && entry.type !== "string") {
    try {
      return JSON.parse(entry.value);
    } catch {
      return entry.value;
    }
  }
  return entry.value;
}

/** The outcome of the node's error strategy, or undefined when the failure fails the run. */
export function errorStrategyOutcome(
  cfg: Record<string, any>,
  error: { code: string; message: string },
): ErrorStrategyOutcome | undefined {
  const strategy = cfg.error_strategy;
  if (strategy !== "default-value" && strategy !== "fail-branch") return undefined;
  const outputs: Record<string, unknown> = { error_message: error.message, error_type: error.code };
  if (strategy === "default-value") for (const d of cfg.default_value ?? []) outputs[d.key] = defaultValue(d);
  return strategy === "fail-branch"
    ? { outputs, port: "fail-branch", route: "fail-branch" }
    : { outputs, port: "source" };
}
