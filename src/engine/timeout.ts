import { NodeExecutionError } from "../ir/errors.js";

/**
 * A node's own time limit (Dify's `timeout_seconds`): the attempt fails with `node.timeout` and its signal
 * is aborted so the node can stop its work. Without a limit the execution is awaited as it is.
 * `allowanceMs` is the node type's start-up time (a sandbox booting) that is not the user's.
 */
export function withNodeTimeout<T>(
  exec: Promise<T>,
  timeoutSeconds: unknown,
  nodeId: string,
  abort: AbortController | undefined,
  allowanceMs = 0,
): Promise<T> {
  const ms = nodeTimeoutMs(timeoutSeconds, allowanceMs);
  if (!ms || !abort) return exec;
  return Promise.race([
    exec,
    new Promise<never>((_, reject) => {
      const t = setTimeout(() => {
        abort.abort();
        reject(new NodeExecutionError("node.timeout", `node timed out after ${timeoutSeconds}s`, nodeId));
      }, ms);
      exec.finally(() => clearTimeout(t)).catch(() => {});
    }),
  ]);
}

/** The node's limit in milliseconds, or 0 when it has none (then the attempt needs no signal of its own). */
export function nodeTimeoutMs(timeoutSeconds: unknown, allowanceMs = 0): number {
  return typeof timeoutSeconds === "number" ? timeoutSeconds * 1000 + allowanceMs : 0;
}
