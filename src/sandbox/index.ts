import type { SandboxLimits, SandboxService } from "../ir/services.js";
import type { EgressProxy, VetHost } from "./egress.js";
import { SandboxError } from "./errors.js";
import { resolveLimits } from "./limits.js";

export type { VetHost } from "./egress.js";
export { SandboxError, type SandboxErrorCode } from "./errors.js";
export { DEFAULT_LIMITS, resolveLimits } from "./limits.js";
export { type ModuleVerdict, pythonImports, pythonModuleVerdict } from "./python-modules.js";

// Each language's runner (QuickJS's worker pool; Python's jail, bootstrap and egress proxy) loads on its first
// run: a process whose workflows run no code, or only one language, does not pay for the other (start-up).
const javascript = () => import("./javascript.js");
const python = () => import("./python.js");

/** For graceful server shutdown: stops the JavaScript worker threads (see javascript.ts). */
export async function closeJavaScriptWorkers(): Promise<void> {
  await (await javascript()).closeJavaScriptWorkers();
}

/** The Python interpreter `command` names, checked to run (see python.ts). */
export async function resolvePython(command?: string): Promise<string> {
  return (await python()).resolvePython(command);
}

export interface SandboxOptions {
  /** Limits used when a request names none; each request may override them. */
  limits?: Partial<SandboxLimits>;
  /** Python command (default: $WEFT_PYTHON or `python3`). */
  python?: string;
  /** How long the Python interpreter may take to start before the code's clock starts. */
  startupAllowanceMs?: number;
  /**
   * The address policy of the jail's egress proxy (the HTTP node's: `GuardedHttpService.vet`). Without
   * it a jailed guest has no route out of its network namespace at all.
   */
  egress?: VetHost;
  /**
   * JavaScript guests first run in a short slice on the calling thread (inline-javascript.ts), sparing a worker
   * thread's start: for one-shot processes such as `weft run`, whose event loop serves nothing else. A server leaves
   * it off, so no guest ever holds its event loop (up to the slice's 200 ms hard stop, per distinct code text).
   */
  inlineJavaScript?: boolean;
}

export type SandboxRequest = Parameters<SandboxService["run"]>[0];

/**
 * The code-node sandbox: JavaScript in QuickJS (WASM, in process), Python in a child process inside
 * an OS jail (jail.ts). Every call is independent; nothing survives between runs except the compiled WASM module.
 */
export function createSandbox(options: SandboxOptions = {}): SandboxService {
  let proxy: Promise<EgressProxy> | undefined;
  const vet = options.egress;
  const egressChannel = vet
    ? async () => {
        proxy ??= import("./egress.js").then(({ EgressProxy }) => EgressProxy.start(vet));
        return (await proxy).openChannel();
      }
    : undefined;
  const pythonOptions = { ...options, egressChannel };
  return {
    async run(req: SandboxRequest): Promise<Record<string, unknown>> {
      const limits = resolveLimits(options.limits, req.limits);
      if (typeof req.code !== "string") {
        throw new SandboxError("sandbox.bad_input", "code must be a string", { language: req.language });
      }
      const inputs = req.inputs ?? {};
      switch (req.language) {
        case "javascript":
          return (await javascript()).runJavaScript(req.code, inputs, limits, req.signal, options.inlineJavaScript);
        case "python3":
          return (await python()).runPython(req.code, inputs, limits, req.signal, pythonOptions);
        default:
          throw new SandboxError("sandbox.bad_input", `unsupported code language ${JSON.stringify(req.language)}`, {
            language: req.language,
          });
      }
    },
  };
}
