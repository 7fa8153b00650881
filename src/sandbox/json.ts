import { HOSTILE_LIMITS, type HostileLimits, readHostileJson } from "../util/hostile-json.js";
import { isPlainObject } from "../util/json.js";
import { SandboxError } from "./errors.js";

type Lang = "javascript" | "python3";

/**
 * Parses a sandbox result: the code's output is hostile input, read by the one hostile-JSON reader
 * (size and depth scanned before a single parse, `__proto__` and `constructor.prototype` keys refused),
 * so a 3M-deep result is refused in one linear pass instead of blocking the event loop (issue 28).
 */
export function parseResult(text: string, language: Lang, maxChars = HOSTILE_LIMITS.maxChars): Record<string, unknown> {
  return resultObject(read(text, language, { maxDepth: HOSTILE_LIMITS.maxDepth, maxChars }, false), language);
}

function read(text: string, language: Lang, limits: HostileLimits, envelope: boolean): unknown {
  const r = readHostileJson(text, limits);
  if (r.ok) return r.value;
  if (r.reason === "invalid") {
    if (envelope) throw unreadable(language);
    throw new SandboxError("sandbox.bad_result", `the result is not valid JSON: ${r.message}`, {
      language,
      reason: r.reason,
    });
  }
  throw new SandboxError("sandbox.bad_result", `the result is refused: ${r.message}`, { language, reason: r.reason });
}

function resultObject(value: unknown, language: Lang): Record<string, unknown> {
  if (!isPlainObject(value))
    throw new SandboxError("sandbox.bad_result", `main must return an object, got ${describe(value)}`, { language });
  return value;
}

const unreadable = (language: Lang) =>
  new SandboxError("sandbox.crashed", "the Python process returned an unreadable reply", { language });

const OK_REPLY = '{"ok":true,"result":';

/**
 * A sandbox reply envelope, `{"ok":true,"result":…}` or an error envelope with the fields the caller
 * reads. The bootstrap's own form of a success has its result read once by parseResult; any other form
 * is read whole (one level deeper, its size already bounded by the output limit).
 */
export function parseReply(
  body: string,
  language: Lang,
  maxChars = HOSTILE_LIMITS.maxChars,
): { ok: true; result: Record<string, unknown> } | { ok: false; envelope: Record<string, unknown> } {
  if (body.startsWith(OK_REPLY) && body.endsWith("}"))
    return { ok: true, result: parseResult(body.slice(OK_REPLY.length, -1), language, maxChars) };
  // The envelope is one level more, and its few fields fit in the room the result is given.
  const envelope = read(body, language, { maxDepth: HOSTILE_LIMITS.maxDepth + 1, maxChars: maxChars + 1024 }, true);
  if (!isPlainObject(envelope)) throw unreadable(language);
  if (envelope.ok === true) return { ok: true, result: resultObject(envelope.result, language) };
  return { ok: false, envelope };
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "an array";
  return `a ${typeof v}`;
}

/** Inputs cross the boundary as JSON; refuse what JSON cannot carry instead of silently changing it. */
export function encodeInputs(inputs: Record<string, unknown>, language: Lang): string {
  let text: string | undefined;
  try {
    text = JSON.stringify(inputs ?? {}, (_k, v) => (typeof v === "bigint" ? Number(v) : v));
  } catch (e) {
    throw new SandboxError("sandbox.bad_input", `inputs cannot be passed as JSON: ${(e as Error).message}`, {
      language,
    });
  }
  if (text === undefined || !text.startsWith("{")) {
    throw new SandboxError("sandbox.bad_input", "inputs must be a JSON object", { language });
  }
  return text;
}
