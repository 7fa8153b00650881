import type { NodeResult } from "../ir/registry.js";
import type { Workflow } from "../ir/workflow.js";
import { modelOfNode, type PriceTable, type RunUsage, sumUsage } from "./cost.js";

interface Entry {
  model: string;
  inputTokens: number;
  outputTokens: number;
}

/**
 * Token usage of the run segments an observer is watching, attempt by attempt: what this process spent
 * (a resumed run's earlier segments were counted where they ran), priced when a table is configured.
 */
export class UsageTally {
  private readonly runs = new Map<string, { wf: Workflow; entries: Entry[] }>();

  constructor(private readonly prices?: PriceTable) {}

  open(runId: string, wf: Workflow): void {
    this.runs.set(runId, { wf, entries: [] });
  }

  add(runId: string, nodeId: string, r: NodeResult): void {
    const run = this.runs.get(runId);
    if (!run || !r.usage) return;
    run.entries.push({
      model: modelOfNode(run.wf, nodeId),
      inputTokens: r.usage.promptTokens,
      outputTokens: r.usage.completionTokens,
    });
  }

  close(runId: string): RunUsage {
    const run = this.runs.get(runId);
    this.runs.delete(runId);
    return sumUsage(run?.entries ?? [], this.prices);
  }
}
