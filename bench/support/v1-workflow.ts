// The 5-node workflow bench/v1-load.ts serves: start → if-else → two variable aggregators → end. No model,
// sandbox or template worker, so the request's cost is the server's and the store's.
import { buildWorkflow } from "../../test/support/build.js";

export const fiveNodeWorkflow = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "text", type: "text-input", required: true }] },
    {
      id: "check",
      type: "if-else",
      cases: [
        {
          case_id: "true",
          logical_operator: "and",
          conditions: [{ variable_selector: ["start", "text"], comparison_operator: "not empty", value: "" }],
        },
      ],
    },
    { id: "agg1", type: "variable-aggregator", output_type: "string", variables: [["start", "text"]] },
    { id: "agg2", type: "variable-aggregator", output_type: "string", variables: [["agg1", "output"]] },
    { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["agg2", "output"] }] },
  ],
  edges: [
    ["start", "check"],
    ["check", "true", "agg1"],
    ["agg1", "agg2"],
    ["agg2", "end"],
  ],
});
