import { type EnvOptions, SopBenchError, SopBenchToolService } from "../../../src/eval/sopbench/index.js";

/** A per-task tool client over the ToolService contract, as a workflow tool node would use it. */
export interface Tools {
  call(name: string, params: Record<string, unknown>): Promise<unknown>;
  /** Like call, but a tool refusal (or schema rejection) comes back as an Error value instead of throwing. */
  tryCall(name: string, params: Record<string, unknown>): Promise<unknown>;
  now(): Date;
}

/** `domain/tool` of every call that succeeded, so a test can check the solvers exercise every tool. */
export const calledTools = new Set<string>();

export function tools(domain: string, options: EnvOptions = {}): Tools {
  const service = new SopBenchToolService(domain, options);
  const call = async (name: string, params: Record<string, unknown>) => {
    const r = await service.invoke({ providerId: service.providerId, toolName: name, parameters: params });
    calledTools.add(`${domain}/${name}`);
    return r.json.length ? r.json[0] : r.text === "null" ? null : r.text;
  };
  return {
    call,
    tryCall: async (name, params) => {
      try {
        return await call(name, params);
      } catch (e) {
        if (e instanceof SopBenchError) return e;
        throw e;
      }
    },
    now: () => service.env.now(),
  };
}

export const obj = (v: unknown) => v as Record<string, unknown>;
