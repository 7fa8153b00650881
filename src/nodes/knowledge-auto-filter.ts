/**
 * Dify's automatic metadata filtering for the knowledge-retrieval node: a model reads the query and the
 * metadata fields the candidates carry and proposes conditions (`{"metadata_map": [{metadata_field_name,
 * metadata_field_value, comparison_operator}]}`), which then filter like manual ones, joined by AND. The
 * answer is hostile input: fields the candidates do not have, unknown operators and non-scalar values are
 * dropped and named in the node's notes. As in Dify, a failed proposal filters nothing and the trace says why.
 */
import { NodeExecutionError } from "../ir/errors.js";
import type { ExecContext } from "../ir/registry.js";
import type { ModelRef, Usage } from "../ir/services.js";
import { callModel, parseJsonObject } from "./model-call.js";

export interface ProposedCondition {
  name: string;
  comparison_operator: string;
  value: string | number;
}

export interface Proposal {
  conditions: ProposedCondition[];
  notes: string[];
  usage?: Usage;
}

/** Each metadata field of the candidates with the kinds of values seen (what the model is told). */
export function metadataFields(docMetadata: Array<Record<string, unknown>>): Map<string, string> {
  const fields = new Map<string, string>();
  for (const m of docMetadata) {
    for (const [k, v] of Object.entries(m)) {
      const kind = typeof v === "number" ? "number" : "string";
      const had = fields.get(k);
      fields.set(k, had && had !== kind ? "string" : kind);
    }
  }
  return fields;
}

function prompt(query: string, fields: Map<string, string>, operators: readonly string[]) {
  const list = [...fields].map(([name, type]) => `- ${name} (${type})`).join("\n");
  return [
    {
      role: "system" as const,
      content:
        "You turn a search query into filter conditions on document metadata. Use only the fields listed, " +
        `only these operators: ${operators.join(", ")}. Give a condition only for what the query states ` +
        'explicitly. Answer with JSON only: {"metadata_map": [{"metadata_field_name": "...", ' +
        '"metadata_field_value": "...", "comparison_operator": "..."}]}; an empty list when the query states none.',
    },
    { role: "user" as const, content: `Metadata fields:\n${list}\n\nQuery: ${query}` },
  ];
}

/** Ask the node's metadata model for conditions; never throws for what the model answered. */
export async function proposeConditions(
  ctx: ExecContext<unknown>,
  model: ModelRef | undefined,
  query: string,
  fields: Map<string, string>,
  operators: readonly string[],
): Promise<Proposal> {
  if (!model?.name)
    return { conditions: [], notes: ["automatic metadata filtering needs metadata_model_config; nothing filtered"] };
  if (fields.size === 0)
    return {
      conditions: [],
      notes: ["automatic metadata filtering: the candidates carry no metadata; nothing filtered"],
    };
  let res: { text: string; usage?: Usage };
  try {
    res = await callModel(ctx, {
      model,
      messages: prompt(query, fields, operators),
      json: { name: "metadata_filter" },
    });
  } catch (err) {
    // An answer that is not JSON (after the service's repair turn) is Dify's "no filter", not a failure.
    if (!(err instanceof NodeExecutionError) || !/STRUCTURED_OUTPUT_INVALID/i.test(err.code)) throw err;
    res = { text: String(err.details.text ?? ""), usage: err.details.usage as Usage | undefined };
  }
  const parsed = parseJsonObject(res.text);
  const map = parsed?.metadata_map;
  if (!Array.isArray(map)) {
    return {
      conditions: [],
      notes: ["automatic metadata filtering: the model's answer has no metadata_map list; nothing filtered"],
      usage: res.usage,
    };
  }
  const conditions: ProposedCondition[] = [];
  const dropped: string[] = [];
  for (const item of map.slice(0, 20)) {
    const o = (item && typeof item === "object" ? item : {}) as Record<string, unknown>;
    const name = o.metadata_field_name;
    const op = o.comparison_operator;
    const value = o.metadata_field_value;
    const scalar = typeof value === "string" || (typeof value === "number" && Number.isFinite(value));
    if (typeof name === "string" && fields.has(name) && typeof op === "string" && operators.includes(op) && scalar) {
      conditions.push({ name, comparison_operator: op, value: value as string | number });
    } else {
      dropped.push(JSON.stringify(item).slice(0, 120));
    }
  }
  const notes = [
    `automatic metadata filter: ${conditions.map((c) => `${c.name} ${c.comparison_operator} ${JSON.stringify(c.value)}`).join(" AND ") || "none proposed"}`,
  ];
  if (dropped.length > 0)
    notes.push(`dropped from the model's filter (unknown field, operator or value): ${dropped.join("; ")}`);
  return { conditions, notes, usage: res.usage };
}
