import { z } from "zod";
import type { Workflow } from "../ir/workflow.js";

/**
 * weft.config.json `observability.prices`: what a model's tokens cost, per million, keyed by the model name
 * nodes name (`gpt-4o-mini`). Optional: without it runs report tokens and no cost.
 */
export const PriceTableSchema = z
  .object({
    currency: z.string().min(1).default("USD"),
    models: z.record(
      z.string().min(1),
      z
        .object({
          inputPerMillion: z.number().nonnegative(),
          outputPerMillion: z.number().nonnegative(),
        })
        .strict(),
    ),
  })
  .strict();
export type PriceTable = z.output<typeof PriceTableSchema>;

export interface TokenCount {
  inputTokens: number;
  outputTokens: number;
}

/** A run's (or an app's) token usage, per model, and its cost when every model used has a price. */
export interface RunUsage extends TokenCount {
  totalTokens: number;
  byModel: Record<string, TokenCount & { cost?: number }>;
  /** Sum over priced models; absent without a price table. */
  cost?: number;
  currency?: string;
  /** Models that used tokens but have no price: the cost leaves them out and says so. */
  unpriced?: string[];
}

/** The model a node calls, as its config names it (LLM, parameter extractor, classifier, agent). */
export function modelOfNode(wf: Workflow, nodeId: string): string {
  const node = wf.nodes.find((n) => n.id === nodeId);
  const model = node?.config.model as { name?: unknown } | undefined;
  return typeof model?.name === "string" && model.name ? model.name : "unknown";
}

/** The cost of one model's tokens, or undefined when the table has no price for it. */
export function costOf(prices: PriceTable | undefined, model: string, t: TokenCount): number | undefined {
  const p = prices?.models[model];
  if (!p) return undefined;
  return (t.inputTokens * p.inputPerMillion + t.outputTokens * p.outputPerMillion) / 1_000_000;
}

/** Token usage entries (model, tokens) summed per model and priced. */
export function sumUsage(
  entries: Iterable<{ model: string; inputTokens: number; outputTokens: number }>,
  prices?: PriceTable,
): RunUsage {
  const byModel: RunUsage["byModel"] = {};
  let inputTokens = 0;
  let outputTokens = 0;
  for (const e of entries) {
    const m = byModel[e.model] ?? { inputTokens: 0, outputTokens: 0 };
    byModel[e.model] = m;
    m.inputTokens += e.inputTokens;
    m.outputTokens += e.outputTokens;
    inputTokens += e.inputTokens;
    outputTokens += e.outputTokens;
  }
  const usage: RunUsage = { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens, byModel };
  if (!prices) return usage;
  let cost = 0;
  const unpriced: string[] = [];
  for (const [model, t] of Object.entries(byModel)) {
    const c = costOf(prices, model, t);
    if (c === undefined) unpriced.push(model);
    else {
      t.cost = c;
      cost += c;
    }
  }
  return { ...usage, cost, currency: prices.currency, ...(unpriced.length ? { unpriced } : {}) };
}

/** A stored run's usage: every attempt's tokens (all segments of a resumed run), by the model its node names. */
export function usageOfAttempts(
  wf: Workflow,
  attempts: Iterable<{ nodeId: string; usage?: { promptTokens: number; completionTokens: number } }>,
  prices?: PriceTable,
): RunUsage {
  const entries = [];
  for (const a of attempts) {
    if (!a.usage) continue;
    entries.push({
      model: modelOfNode(wf, a.nodeId),
      inputTokens: a.usage.promptTokens,
      outputTokens: a.usage.completionTokens,
    });
  }
  return sumUsage(entries, prices);
}
