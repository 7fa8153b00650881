/**
 * The one reader for JSON that another program wrote: code node results, MCP and OpenAPI tool results.
 * Such JSON is hostile input (issue 28):
 * - nesting: a 3M-deep array parses, but every recursive walk after it (a reviver, schema checks,
 *   structuredClone, JSON.stringify into the store) then blocks the event loop or overflows the stack;
 * - size: parsing is linear, but what follows it is not always;
 * - `__proto__` keys survive JSON.parse as own properties and become a prototype change in the first
 *   `Object.assign`/spread downstream, and a `constructor.prototype` pair pollutes any path-merging code.
 * Text is scanned once for size and depth before the single JSON.parse; the parsed value is then checked
 * for those keys (secure-json-parse's scan). Such keys are refused, not dropped: a tool whose result
 * changes silently is worse than one that fails with its name on the error. Callers turn a problem into
 * their own typed error (sandbox.bad_result, tool.bad_result) naming what sent it.
 */
import { scan } from "secure-json-parse";
import { MAX_JSON_DEPTH } from "./json-depth.js";

export interface HostileLimits {
  /** Containers nested inside each other (`[[1]]` is 2). */
  maxDepth: number;
  /** Characters of JSON text (for a value already parsed: of its JSON text). */
  maxChars: number;
}

/** Workflows and Dify's code outputs nest far less than 64; 8 MB is the sandbox's default output limit. */
export const HOSTILE_LIMITS: HostileLimits = { maxDepth: MAX_JSON_DEPTH, maxChars: 8 * 1024 * 1024 };

export type HostileReason = "too_large" | "too_deep" | "forbidden_key" | "invalid";
export interface HostileProblem {
  reason: HostileReason;
  message: string;
}
export type HostileRead = { ok: true; value: unknown } | ({ ok: false } & HostileProblem);

const problem = (reason: HostileReason, message: string): { ok: false } & HostileProblem => ({
  ok: false,
  reason,
  message,
});

/**
 * The offset at which `text` opens its `max + 1`-th nested container, or -1. One pass, no recursion;
 * brackets inside strings do not count. Invalid JSON is left to JSON.parse.
 */
export function depthExceededAt(text: string, max: number): number {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: the next character is escaped
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return i;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return -1;
}

/** Parse JSON text from another program: size and depth scanned first, then one parse, then the keys. */
export function readHostileJson(text: string, limits: HostileLimits = HOSTILE_LIMITS): HostileRead {
  if (text.length > limits.maxChars)
    return problem("too_large", `the JSON is ${text.length} characters, over the limit of ${limits.maxChars}`);
  const at = depthExceededAt(text, limits.maxDepth);
  if (at >= 0) return problem("too_deep", `the JSON nests deeper than ${limits.maxDepth} levels (at character ${at})`);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    return problem("invalid", `the JSON is not valid: ${(e as Error).message}`);
  }
  const keys = forbiddenKey(value);
  return keys ? keys : { ok: true, value };
}

/**
 * Check a value another program's JSON already became (an SDK parsed it): depth, size, forbidden keys,
 * and objects whose prototype is not a plain object's (a parser that assigned a `__proto__` key).
 */
export function checkHostileValue(value: unknown, limits: HostileLimits = HOSTILE_LIMITS): HostileProblem | undefined {
  const shape = shapeProblem(value, limits.maxDepth);
  if (shape) return shape;
  const chars = JSON.stringify(value)?.length ?? 0;
  if (chars > limits.maxChars)
    return { reason: "too_large", message: `the JSON is ${chars} characters, over the limit of ${limits.maxChars}` };
  const keys = forbiddenKey(value);
  return keys ? { reason: keys.reason, message: keys.message } : undefined;
}

function forbiddenKey(value: unknown): ({ ok: false } & HostileProblem) | undefined {
  if (value === null || typeof value !== "object") return undefined;
  // safe: null instead of throwing, so a failure of the scan itself is never mistaken for a finding.
  if (scan(value as Record<string, unknown>, { protoAction: "error", constructorAction: "error", safe: true }) !== null)
    return undefined;
  return problem(
    "forbidden_key",
    'the JSON has a "__proto__" key or a "constructor" object with a "prototype" key, which could change object prototypes',
  );
}

/** Depth over `max` or a container that is not a plain object or array, with its path. Iterative. */
function shapeProblem(value: unknown, max: number): HostileProblem | undefined {
  const stack: Array<{ v: unknown; depth: number; path: string }> = [{ v: value, depth: 1, path: "$" }];
  while (stack.length > 0) {
    const { v, depth, path } = stack.pop()!;
    if (v === null || typeof v !== "object") continue;
    if (depth > max)
      return { reason: "too_deep", message: `the JSON nests deeper than ${max} levels (at ${path.slice(0, 120)})` };
    const proto = Object.getPrototypeOf(v);
    if (Array.isArray(v) ? proto !== Array.prototype : proto !== Object.prototype && proto !== null)
      return {
        reason: "forbidden_key",
        message: `the JSON value at ${path.slice(0, 120)} has a changed prototype (a "__proto__" key)`,
      };
    for (const [k, x] of Object.entries(v))
      stack.push({ v: x, depth: depth + 1, path: Array.isArray(v) ? `${path}[${k}]` : `${path}.${k}` });
  }
  return undefined;
}
