/**
 * Our own retry loop (the AI SDK's is switched off with maxRetries: 0) so that what is retried, how long we
 * wait and what error comes out are decided in one place and are the same for every provider.
 */
import { APICallError } from "ai";
import type { RetryPolicy } from "./config.js";
import { LlmError, type LlmErrorCode } from "./errors.js";

export interface AttemptContext {
  endpoint: string;
  model: string;
}

export interface RetryEvent extends AttemptContext {
  attempt: number;
  delayMs: number;
  error: LlmError;
}

export interface RetryDeps {
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  random: () => number;
  onRetry?: (e: RetryEvent) => void;
}

/** Wraps an attempt's error that must not be retried (e.g. a stream that already emitted text). */
export class NoRetry extends Error {
  constructor(readonly inner: unknown) {
    super("not retryable");
  }
}

/** Thrown inside an attempt when our per-attempt timer fired (as opposed to the caller's abort). */
export class AttemptTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/**
 * Runs `attempt` with a fresh per-attempt timeout signal (re-armed by `keepAlive`) until it succeeds, fails with a non-retryable
 * error, or the retry budget is spent. Errors come out as LlmError with `details.attempts`.
 */
export async function withRetries<T>(
  ctx: AttemptContext,
  policy: RetryPolicy,
  timeoutMs: number,
  callerSignal: AbortSignal | undefined,
  deps: RetryDeps,
  attempt: (signal: AbortSignal, attemptNo: number, keepAlive: () => void) => Promise<T>,
): Promise<T> {
  for (let n = 1; ; n++) {
    if (callerSignal?.aborted) throw aborted(ctx, n - 1);
    // One signal per attempt, aborted by the attempt's timer or by the caller's signal (with its reason). A
    // listener rather than AbortSignal.any, and one timer refreshed rather than one per chunk: both were
    // measurable in a streamed call's CPU.
    const attemptAbort = new AbortController();
    let timedOut = false;
    const handle = setTimeout(() => {
      timedOut = true;
      attemptAbort.abort(new AttemptTimeout(timeoutMs));
    }, timeoutMs);
    const onCallerAbort = () => attemptAbort.abort(callerSignal?.reason);
    callerSignal?.addEventListener("abort", onCallerAbort, { once: true });
    // A streaming attempt calls this on every chunk, so its timeout bounds silence, not total length.
    const keepAlive = () => {
      if (!attemptAbort.signal.aborted) handle.refresh();
    };
    try {
      return await attempt(attemptAbort.signal, n, keepAlive);
    } catch (raw) {
      if (callerSignal?.aborted) throw aborted(ctx, n);
      const final = raw instanceof NoRetry;
      const err = classify(final ? raw.inner : raw, ctx, timedOut ? timeoutMs : undefined);
      err.details.attempts = n;
      if (final) err.retryable = false;
      if (!err.retryable || n > policy.maxRetries) throw err;
      const delayMs = retryDelay(err, n, policy, deps.random);
      if (delayMs === undefined) throw err;
      deps.onRetry?.({ ...ctx, attempt: n, delayMs, error: err });
      try {
        await deps.sleep(delayMs, callerSignal);
      } catch {
        throw aborted(ctx, n);
      }
    } finally {
      clearTimeout(handle);
      callerSignal?.removeEventListener("abort", onCallerAbort);
    }
  }
}

/** Delay before retry `n` (1-based): the server's Retry-After if given, else capped exponential + jitter. */
export function retryDelay(err: LlmError, n: number, policy: RetryPolicy, random: () => number): number | undefined {
  const retryAfter = err.details.retryAfterMs;
  if (typeof retryAfter === "number") {
    // Waiting less than the server asked is pointless; waiting longer than our bound is not worth it.
    return retryAfter > policy.maxRetryAfterMs ? undefined : retryAfter;
  }
  const exp = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (n - 1));
  // "Equal jitter": half fixed, half random, so concurrent clients spread out but still back off.
  return Math.round(exp / 2 + random() * (exp / 2));
}

function aborted(ctx: AttemptContext, attempts: number): LlmError {
  return new LlmError("llm.aborted", `Call to ${ctx.endpoint} (${ctx.model}) was aborted`, { ...ctx, attempts });
}

/** Maps whatever an attempt threw onto an LlmError with a code and a retryable flag. */
export function classify(raw: unknown, ctx: AttemptContext, timedOutAfterMs?: number): LlmError {
  if (raw instanceof LlmError) {
    Object.assign(raw.details, { ...ctx, ...raw.details });
    return raw;
  }
  const where = `${ctx.endpoint} (${ctx.model})`;
  if (timedOutAfterMs !== undefined) {
    return new LlmError(
      "llm.timeout",
      `Call to ${where} timed out after ${timedOutAfterMs} ms`,
      { ...ctx, timeoutMs: timedOutAfterMs },
      true,
    );
  }
  const api = findApiCallError(raw);
  if (api) {
    const status = api.statusCode;
    const retryAfterMs = parseRetryAfter(api.responseHeaders);
    const details: Record<string, unknown> = { ...ctx, status, url: api.url };
    if (retryAfterMs !== undefined) details.retryAfterMs = retryAfterMs;
    const body = typeof api.responseBody === "string" ? api.responseBody.slice(0, 500) : undefined;
    if (body) details.responseBody = body;
    if (status === undefined) {
      return new LlmError("llm.connection", `Cannot reach ${where}: ${api.message}`, details, true);
    }
    if (status >= 200 && status < 300 && isNetworkError(api.cause)) {
      // The SDK reports a connection cut while reading a 200 body as a failed "successful response".
      return new LlmError("llm.connection", `Connection to ${where} broke mid-response`, details, true);
    }
    const [code, retryable] = statusCode(status);
    const what = status >= 200 && status < 300 ? "an unreadable response" : `HTTP ${status}`;
    return new LlmError(code, `${where} answered with ${what}: ${api.message}`, details, retryable);
  }
  if (isNetworkError(raw)) {
    return new LlmError("llm.connection", `Cannot reach ${where}: ${(raw as Error).message}`, { ...ctx }, true);
  }
  const message = raw instanceof Error ? raw.message : String(raw);
  const name = raw instanceof Error ? raw.name : "";
  if (/JSONParseError|TypeValidationError|InvalidResponseData|NoContentGenerated|EmptyResponseBody/i.test(name)) {
    return new LlmError(
      "llm.bad_response",
      `${where} sent a response that could not be read: ${message}`,
      { ...ctx },
      true,
    );
  }
  return new LlmError("llm.call_failed", `Call to ${where} failed: ${message}`, { ...ctx, cause: name || undefined });
}

function statusCode(status: number): [LlmErrorCode, boolean] {
  if (status === 429) return ["llm.rate_limited", true];
  if (status === 408) return ["llm.timeout", true];
  if (status === 401 || status === 403) return ["llm.auth", false];
  if (status >= 500) return ["llm.server_error", true];
  // A 2xx here means the body could not be parsed (truncated or garbled): worth one more try.
  if (status >= 200 && status < 300) return ["llm.bad_response", true];
  return ["llm.bad_request", false];
}

function findApiCallError(raw: unknown): APICallError | undefined {
  let e: unknown = raw;
  for (let depth = 0; depth < 4 && e; depth++) {
    if (APICallError.isInstance(e)) return e;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

const NETWORK_CODES = new Set(["ECONNRESET", "ECONNREFUSED", "ETIMEDOUT", "EPIPE", "UND_ERR_SOCKET", "EAI_AGAIN"]);

function isNetworkError(raw: unknown): boolean {
  let e: unknown = raw;
  for (let depth = 0; depth < 6 && e; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
    e = (e as { cause?: unknown }).cause;
  }
  return false;
}

function parseRetryAfter(headers: Record<string, string> | undefined): number | undefined {
  if (!headers) return undefined;
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const ms = Number.parseFloat(lower["retry-after-ms"] ?? "");
  if (Number.isFinite(ms) && ms >= 0) return ms;
  const value = lower["retry-after"];
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((ok, fail) => {
    if (signal?.aborted) return fail(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      ok();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      fail(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
