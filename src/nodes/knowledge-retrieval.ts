import { z } from "zod";
import type { Diagnostic } from "../ir/diagnostics.js";
import { NodeExecutionError, NotConfiguredError, WeftError } from "../ir/errors.js";
import type { InputRef, TextField } from "../ir/registry.js";
import { commonFields, defineNode, ModelSchema, Sel, SOURCE, templateInputs, textField } from "./common.js";
import { makeDiagnostic, nodeLabel } from "./diagnostics.js";
import { metadataFields, proposeConditions } from "./knowledge-auto-filter.js";

const MetadataCondition = z
  .object({
    id: z.string().optional(),
    name: z.string(),
    comparison_operator: z.string(),
    value: z.union([z.string(), z.number(), z.array(z.string()), z.null()]).optional(),
  })
  .loose();
type MetadataCondition = z.infer<typeof MetadataCondition>;

const KnowledgeConfig = z
  .object({
    ...commonFields,
    query_variable_selector: Sel.default([]),
    query_attachment_selector: Sel.nullish(),
    dataset_ids: z.array(z.union([z.string(), z.number()]).transform(String)).default([]),
    retrieval_mode: z.string().nullish(),
    multiple_retrieval_config: z
      .object({
        top_k: z.number().int().nullish(),
        score_threshold: z.number().nullish(),
        reranking_enable: z.boolean().nullish(),
        reranking_mode: z.string().nullish(),
        reranking_model: z.object({ provider: z.string().optional(), model: z.string().optional() }).loose().nullish(),
        weights: z.record(z.string(), z.unknown()).nullish(),
      })
      .loose()
      .nullish(),
    single_retrieval_config: z.object({ model: ModelSchema.nullish() }).loose().nullish(),
    /** Very old files: per-node retrieval settings. */
    retrieval_model: z
      .object({ search_method: z.string().optional(), top_k: z.number().int().nullish() })
      .loose()
      .nullish(),
    metadata_filtering_mode: z.string().nullish(),
    metadata_filtering_conditions: z
      .object({
        logical_operator: z.string().default("and"),
        conditions: z.array(MetadataCondition).default([]),
      })
      .loose()
      .nullish(),
    metadata_model_config: ModelSchema.nullish(),
  })
  .loose();
export type KnowledgeConfig = z.infer<typeof KnowledgeConfig>;

/**
 * How multiple retrieval orders its candidates, as Dify reads the node: `weighted_score` sets the vector
 * share of hybrid scores; a rerank model (`reranking_model` mode, or an older file with only
 * `reranking_enable` and a model) reorders the merged candidates.
 */
function ranking(c: KnowledgeConfig): { rerank?: { model?: string; provider?: string }; vectorWeight?: number } {
  const m = c.multiple_retrieval_config;
  if (!m || c.retrieval_mode === "single") return {};
  if (m.reranking_mode === "weighted_score") {
    const vector = (m.weights as { vector_setting?: { vector_weight?: unknown } } | null | undefined)?.vector_setting;
    const w = typeof vector?.vector_weight === "number" ? vector.vector_weight : undefined;
    return w !== undefined && w >= 0 && w <= 1 ? { vectorWeight: w } : {};
  }
  if (m.reranking_enable && (m.reranking_mode === "reranking_model" || !m.reranking_mode)) {
    return { rerank: { model: m.reranking_model?.model, provider: m.reranking_model?.provider } };
  }
  return {};
}

function conditions(c: KnowledgeConfig): MetadataCondition[] {
  return c.metadata_filtering_mode === "manual" ? (c.metadata_filtering_conditions?.conditions ?? []) : [];
}

function krTexts(c: KnowledgeConfig): TextField[] {
  return conditions(c).flatMap((k, i) =>
    typeof k.value === "string" ? textField(`metadata_filtering_conditions.conditions[${i}].value`, k.value) : [],
  );
}

function krInputs(c: KnowledgeConfig): InputRef[] {
  const out: InputRef[] = [];
  if (c.query_variable_selector.length > 0) {
    out.push({ selector: c.query_variable_selector, field: "query_variable_selector", expects: "string" });
  }
  if (c.query_attachment_selector && c.query_attachment_selector.length > 0) {
    out.push({ selector: c.query_attachment_selector, field: "query_attachment_selector", optional: true });
  }
  for (const t of krTexts(c)) out.push(...templateInputs(t.text, t.field));
  return out;
}

type Hit = { content: string; title: string; metadata: Record<string, unknown> };

function metaValue(hit: Hit, name: string): unknown {
  const doc = hit.metadata.doc_metadata;
  if (doc && typeof doc === "object" && name in (doc as object)) return (doc as Record<string, unknown>)[name];
  return hit.metadata[name];
}

function asNumber(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

function asTime(v: unknown): number | undefined {
  if (typeof v === "number") return v < 1e12 ? v * 1000 : v;
  if (typeof v === "string") {
    const n = asNumber(v);
    if (n !== undefined) return n < 1e12 ? n * 1000 : n;
    const t = Date.parse(v);
    return Number.isNaN(t) ? undefined : t;
  }
  return undefined;
}

/** Dify's manual metadata operators, applied to one hit's metadata value. */
export function metadataMatches(actual: unknown, op: string, expected: unknown): boolean {
  const s = actual === null || actual === undefined ? "" : String(actual);
  const e = expected === null || expected === undefined ? "" : expected;
  switch (op) {
    case "contains":
      return s.includes(String(e));
    case "not contains":
      return !s.includes(String(e));
    case "start with":
      return s.startsWith(String(e));
    case "end with":
      return s.endsWith(String(e));
    case "is":
    case "=":
      return asNumber(actual) !== undefined && asNumber(e) !== undefined
        ? asNumber(actual) === asNumber(e)
        : s === String(e);
    case "is not":
    case "≠":
      return asNumber(actual) !== undefined && asNumber(e) !== undefined
        ? asNumber(actual) !== asNumber(e)
        : s !== String(e);
    case "empty":
      return s === "";
    case "not empty":
      return s !== "";
    case "in":
    case "not in": {
      const list = Array.isArray(e)
        ? e.map(String)
        : String(e)
            .split(",")
            .map((x) => x.trim());
      return op === "in" ? list.includes(s) : !list.includes(s);
    }
    case ">":
    case "<":
    case "≥":
    case "≤": {
      const a = asNumber(actual);
      const b = asNumber(e);
      if (a === undefined || b === undefined) return false;
      return op === ">" ? a > b : op === "<" ? a < b : op === "≥" ? a >= b : a <= b;
    }
    case "before":
    case "after": {
      const a = asTime(actual);
      const b = asTime(e);
      if (a === undefined || b === undefined) return false;
      return op === "before" ? a < b : a > b;
    }
    default:
      return false;
  }
}

const KNOWN_OPS = new Set([
  "contains",
  "not contains",
  "start with",
  "end with",
  "is",
  "is not",
  "empty",
  "not empty",
  "in",
  "not in",
  "=",
  "≠",
  ">",
  "<",
  "≥",
  "≤",
  "before",
  "after",
]);

export const knowledgeRetrievalNode = defineNode<KnowledgeConfig>({
  type: "knowledge-retrieval",
  label: "Knowledge Retrieval",
  category: "knowledge",
  purpose: "Searches the chosen knowledge bases for passages relevant to the query text and outputs them as a list.",
  notes: [
    "Output `result` is a list of {content, title, metadata}; feed it to an LLM node's context and use {{#context#}}.",
    "retrieval_mode multiple searches every dataset (top_k, score_threshold); single routes to one dataset.",
  ],
  configSchema: KnowledgeConfig,
  example: {
    query_variable_selector: ["start", "query"],
    dataset_ids: ["<dataset id>"],
    retrieval_mode: "multiple",
    multiple_retrieval_config: { top_k: 4, score_threshold: null, reranking_enable: false },
  },
  outputs: () => [{ name: "result", type: "array[object]" }],
  inputs: (c) => krInputs(c),
  ports: () => SOURCE,
  texts: (c) => krTexts(c),
  rules(c, sctx) {
    const id = sctx.node.id;
    const out: Diagnostic[] = [];
    if (c.query_variable_selector.length === 0 && !c.query_attachment_selector?.length) {
      out.push(makeDiagnostic(id, "knowledge.no_query", "query_variable_selector", "no query variable is chosen"));
    }
    if (c.dataset_ids.length === 0) {
      out.push(
        makeDiagnostic(
          id,
          "knowledge.no_datasets",
          "dataset_ids",
          "no knowledge base is chosen; the result will be empty",
          "warning",
        ),
      );
    }
    if (c.retrieval_mode && c.retrieval_mode !== "single" && c.retrieval_mode !== "multiple") {
      out.push(
        makeDiagnostic(
          id,
          "knowledge.retrieval_mode",
          "retrieval_mode",
          `retrieval_mode "${c.retrieval_mode}" is not single or multiple`,
        ),
      );
    }
    const topK = c.multiple_retrieval_config?.top_k;
    if (topK !== undefined && topK !== null && topK < 1) {
      out.push(makeDiagnostic(id, "knowledge.top_k", "multiple_retrieval_config.top_k", "top_k must be at least 1"));
    }
    conditions(c).forEach((k, i) => {
      if (!KNOWN_OPS.has(k.comparison_operator)) {
        out.push(
          makeDiagnostic(
            id,
            "knowledge.metadata_operator",
            `metadata_filtering_conditions.conditions[${i}].comparison_operator`,
            `unknown metadata operator "${k.comparison_operator}"`,
          ),
        );
      }
    });
    return out;
  },
  async execute(ctx) {
    const c = ctx.config;
    const kb = ctx.services.knowledge;
    if (!kb) {
      throw new NotConfiguredError(
        "knowledge.not_configured",
        `${nodeLabel(ctx.node)}: no knowledge bases are available here; run with a database (weft run --db, weft serve) and create them with weft kb create NAME --id ${c.dataset_ids[0] ?? "ID"} && weft kb add ID FILE…`,
        {
          nodeId: ctx.node.id,
        },
      );
    }
    const q = c.query_variable_selector.length > 0 ? ctx.read(c.query_variable_selector) : { found: false };
    const query = q.found && q.value != null ? (typeof q.value === "string" ? q.value : JSON.stringify(q.value)) : "";
    if (query.trim() === "") {
      throw new NodeExecutionError(
        "knowledge.query_missing",
        `${nodeLabel(ctx.node)}: Query is required.`,
        ctx.node.id,
        {
          field: "query_variable_selector",
        },
      );
    }
    if (c.dataset_ids.length === 0) return { outputs: { result: [] } };
    const single = c.retrieval_mode === "single";
    const topK =
      (single ? c.retrieval_model?.top_k : c.multiple_retrieval_config?.top_k) ?? c.retrieval_model?.top_k ?? 4;
    const scoreThreshold = single ? undefined : (c.multiple_retrieval_config?.score_threshold ?? undefined);
    let hits: Hit[];
    const notes: string[] = [];
    const onNote = (text: string) => {
      notes.push(text);
      ctx.emit({ type: "log", text });
    };
    try {
      // Metadata conditions filter after retrieval, so they get a wider pool to filter from.
      const filtering = conditions(c).length > 0 || c.metadata_filtering_mode === "automatic";
      const pool = filtering ? Math.max(topK * 10, 100) : topK;
      hits = await kb.retrieve({ query, datasetIds: c.dataset_ids, topK: pool, scoreThreshold, ...ranking(c), onNote });
    } catch (err) {
      if (err instanceof NotConfiguredError) throw err;
      const code = err instanceof WeftError ? err.code : "knowledge.retrieve_failed";
      throw new NodeExecutionError(
        code,
        `${nodeLabel(ctx.node)}: retrieval failed: ${(err as Error)?.message ?? String(err)}`,
        ctx.node.id,
      );
    }
    const score = (h: Hit) => (typeof h.metadata.score === "number" ? h.metadata.score : 0);
    hits = [...hits].sort((a, b) => score(b) - score(a));
    if (single && c.dataset_ids.length > 1 && hits.length > 0) {
      // Dify lets a model route the query to one dataset by its description; without descriptions,
      // the dataset of the best-scoring passage stands in for that choice.
      const chosen = hits[0]?.metadata.dataset_id;
      if (chosen !== undefined) hits = hits.filter((h) => h.metadata.dataset_id === chosen);
      notes.push(`single mode routed to dataset ${String(chosen)} by best score`);
    }
    const conds = conditions(c);
    if (conds.length > 0) {
      const any = c.metadata_filtering_conditions?.logical_operator === "or";
      const rendered = conds.map((k) => ({ ...k, value: typeof k.value === "string" ? ctx.render(k.value) : k.value }));
      hits = hits.filter((h) => {
        const results = rendered.map((k) => metadataMatches(metaValue(h, k.name), k.comparison_operator, k.value));
        return any ? results.some(Boolean) : results.every(Boolean);
      });
    } else if (c.metadata_filtering_mode === "automatic" && hits.length > 0) {
      const docMeta = hits
        .map((h) => h.metadata.doc_metadata)
        .filter((m): m is Record<string, unknown> => !!m && typeof m === "object");
      const proposal = await proposeConditions(
        ctx,
        c.metadata_model_config ?? undefined,
        query,
        metadataFields(docMeta),
        [...KNOWN_OPS],
      );
      notes.push(...proposal.notes);
      const proposed = proposal.conditions;
      if (proposed.length > 0) {
        hits = hits.filter((h) =>
          proposed.every((k) => metadataMatches(metaValue(h, k.name), k.comparison_operator, k.value)),
        );
      }
    }
    const result = hits.slice(0, topK).map((h, i) => ({
      content: h.content,
      title: h.title,
      metadata: { _source: "knowledge", ...h.metadata, position: i + 1 },
    }));
    return { outputs: { result }, meta: { query, topK, notes } };
  },
});
