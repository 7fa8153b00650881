import type { SandboxLimits } from "../ir/services.js";

/** Defaults sized for Dify-style glue code: Dify's own sandbox allows 15 s and a few hundred MB. */
export const DEFAULT_LIMITS: SandboxLimits = {
  timeoutMs: 10_000,
  memoryBytes: 128 * 1024 * 1024,
  maxOutputBytes: 8 * 1024 * 1024,
};

/** Hard ceilings so a workflow file cannot ask for an unbounded sandbox. */
const CEILING: SandboxLimits = {
  timeoutMs: 10 * 60_000,
  memoryBytes: 4 * 1024 * 1024 * 1024,
  maxOutputBytes: 256 * 1024 * 1024,
};

const FLOOR: SandboxLimits = { timeoutMs: 10, memoryBytes: 4 * 1024 * 1024, maxOutputBytes: 1024 };

export function resolveLimits(
  base: Partial<SandboxLimits> | undefined,
  req: Partial<SandboxLimits> | undefined,
): SandboxLimits {
  const out = { ...DEFAULT_LIMITS };
  for (const src of [base, req]) {
    if (!src) continue;
    for (const k of Object.keys(out) as (keyof SandboxLimits)[]) {
      const v = src[k];
      if (typeof v === "number" && Number.isFinite(v) && v > 0) out[k] = v;
    }
  }
  for (const k of Object.keys(out) as (keyof SandboxLimits)[]) {
    out[k] = Math.min(CEILING[k], Math.max(FLOOR[k], Math.floor(out[k])));
  }
  return out;
}
