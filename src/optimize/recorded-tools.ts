/**
 * A replay tool environment built from task records: a call whose (tool, canonical arguments) was
 * logged returns the logged response; anything else is a typed `tool.not_recorded` error (which a
 * tool-call node records as its error output). This lets `weft optimize` run ToolBench-style logs
 * offline, where the original RapidAPI tools are out of reach.
 */

import { canonicalArguments } from "../eval/metrics/tc.js";
import { WeftError } from "../ir/errors.js";
import type { ToolInvocation, ToolResult, ToolService, ToolSpec } from "../ir/services.js";
import type { TaskRecord } from "../mine/records.js";

export class RecordedToolService implements ToolService {
  private readonly responses = new Map<string, string>();
  private readonly specs: ToolSpec[];

  constructor(records: readonly TaskRecord[], specs?: ToolSpec[]) {
    const names = new Set<string>();
    for (const r of records) {
      for (const c of r.calls) {
        names.add(c.tool);
        if (c.response !== undefined) this.responses.set(`${c.tool}|${canonicalArguments(c.arguments)}`, c.response);
      }
    }
    this.specs =
      specs && specs.length > 0
        ? specs
        : [...names].sort().map((name) => ({ name, description: "", parameters: { type: "object" } }));
  }

  list(): ToolSpec[] {
    return structuredClone(this.specs);
  }

  get size(): number {
    return this.responses.size;
  }

  async invoke(inv: ToolInvocation): Promise<ToolResult> {
    const text = this.responses.get(`${inv.toolName}|${canonicalArguments(inv.parameters ?? {})}`);
    if (text === undefined)
      throw new WeftError("tool.not_recorded", `no logged response for ${inv.toolName} with these arguments`, {
        tool: inv.toolName,
        parameters: inv.parameters,
      });
    let json: unknown[] = [];
    try {
      const v = JSON.parse(text);
      if (v && typeof v === "object") json = [v];
    } catch {
      // plain text response
    }
    return { text, files: [], json };
  }
}
