import type { ExecServices } from "../../ir/services.js";
import { SopBenchToolService } from "./service.js";

type ToolEnv = { kind: string; domain: string; options?: Record<string, unknown> };

/** What a queued SOP-Bench task carries for its worker to build its tool environment from. */
export function sopbenchToolEnv(domain: string, options: Record<string, unknown>): ToolEnv {
  return { kind: "sopbench", domain, options };
}

/**
 * A queued SOP-Bench task's services (`toolEnv` kind "sopbench", put on the queue by `weft eval sopbench`): a
 * fresh tool environment, its own tables and clock, for this run alone. Other jobs get nothing extra.
 */
export function sopbenchJobServices(job: { toolEnv?: ToolEnv }): Partial<ExecServices> {
  if (job.toolEnv?.kind !== "sopbench") return {};
  const tools = new SopBenchToolService(job.toolEnv.domain, job.toolEnv.options ?? {});
  return { tools, now: () => tools.env.now() };
}
