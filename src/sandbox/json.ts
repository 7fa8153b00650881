import { SandboxError } from "./errors.js";

type Lang = "javascript" | "python3";

/**
 * Parses a sandbox result. A `__proto__` key would survive JSON.parse as an own property and later
 * turn into a prototype change in any `Object.assign`/spread downstream, so it is refused here.
 */
export function parseResult(text: string, language: Lang): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text, (key, v) => {
      if (key === "__proto__") {
        throw new SandboxError("sandbox.bad_result", 'the result contains a "__proto__" key, which is not allowed', {
          language,
        });
      }
      return v;
    });
  } catch (e) {
    if (e instanceof SandboxError) throw e;
    throw new SandboxError("sandbox.bad_result", `the result is not valid JSON: ${(e as Error).message}`, { language });
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    throw new SandboxError("sandbox.bad_result", `main must return an object, got ${describe(value)}`, { language });
  }
  return value as Record<string, unknown>;
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
