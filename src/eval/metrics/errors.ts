import { WeftError } from "../../ir/errors.js";

/**
 * Bad input to a metric (malformed graph, out-of-range edge, wrong matrix shape, unparseable judge output...).
 * `code` is one of the `metric.*` codes below; `details` names the field and the reason.
 */
export class MetricInputError extends WeftError {}

export const MetricCodes = {
  invalidGraph: "metric.invalid_graph",
  cyclicGraph: "metric.cyclic_graph",
  invalidMatrix: "metric.invalid_matrix",
  invalidSimilarity: "metric.invalid_similarity",
  invalidEmbedding: "metric.invalid_embedding",
  invalidArgument: "metric.invalid_argument",
  judgeOutput: "metric.judge_output_unparseable",
} as const;
