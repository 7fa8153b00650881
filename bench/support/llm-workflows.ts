// The workflows bench/llm.ts times, apart so a test checks that each ends with the answer it measures.
import { buildWorkflow } from "../../test/support/build.js";

const model = { provider: "openai", name: "m", mode: "chat", completion_params: {} };
const start = { id: "start", type: "start", variables: [{ variable: "q", type: "paragraph", required: true }] };

/** start → llm (streamed) → end.a */
export const streamWf = buildWorkflow({
  nodes: [
    start,
    {
      id: "llm",
      type: "llm",
      model,
      prompt_template: [{ role: "user", text: "{{#start.q#}}" }],
      vision: { enabled: false },
    },
    { id: "end", type: "end", outputs: [{ variable: "a", value_selector: ["llm", "text"] }] },
  ],
  edges: [
    ["start", "llm"],
    ["llm", "end"],
  ],
});

/**
 * start → question-classifier (a JSON answer, not streamed) → end.c. A classifier leaves on the port of the
 * class it chose (the class id), so each class has its edge to the end.
 */
export const jsonWf = buildWorkflow({
  nodes: [
    start,
    {
      id: "qc",
      type: "question-classifier",
      model,
      query_variable_selector: ["start", "q"],
      classes: [
        { id: "1", name: "Geography" },
        { id: "2", name: "Other" },
      ],
      vision: { enabled: false },
    },
    { id: "end", type: "end", outputs: [{ variable: "c", value_selector: ["qc", "class_name"] }] },
  ],
  edges: [
    ["start", "qc"],
    ["qc", "1", "end"],
    ["qc", "2", "end"],
  ],
});
