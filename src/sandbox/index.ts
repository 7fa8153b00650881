import type { SandboxLimits, SandboxService } from "../ir/services.js";
import { SandboxError } from "./errors.js";
import { runJavaScript } from "./javascript.js";
import { resolveLimits } from "./limits.js";
import { runPython } from "./python.js";

export { SandboxError, type SandboxErrorCode } from "./errors.js";
export { closeJavaScriptWorkers } from "./javascript.js";
export { DEFAULT_LIMITS, resolveLimits } from "./limits.js";
export { resolvePython } from "./python.js";

export interface SandboxOptions {
  /** Limits used when a request names none; each request may override them. */
  limits?: Partial<SandboxLimits>;
  /** Python command (default: $WEFT_PYTHON or `python3`). */
  python?: string;
  /** How long the Python interpreter may take to start before the code's clock starts. */
  startupAllowanceMs?: number;
}

export type SandboxRequest = Parameters<SandboxService["run"]>[0];

/**
 * The code-node sandbox: JavaScript in QuickJS (WASM, in process), Python in a locked-down child
 * process. Every call is independent; nothing survives between runs except the compiled WASM module.
 */
export function createSandbox(options: SandboxOptions = {}): SandboxService {
  return {
    async run(req: SandboxRequest): Promise<Record<string, unknown>> {
      const limits = resolveLimits(options.limits, req.limits);
      if (typeof req.code !== "string") {
        throw new SandboxError("sandbox.bad_input", "code must be a string", { language: req.language });
      }
      const inputs = req.inputs ?? {};
      switch (req.language) {
        case "javascript":
          return runJavaScript(req.code, inputs, limits, req.signal);
        case "python3":
          return runPython(req.code, inputs, limits, req.signal, options);
        default:
          throw new SandboxError("sandbox.bad_input", `unsupported code language ${JSON.stringify(req.language)}`, {
            language: req.language,
          });
      }
    },
  };
}
