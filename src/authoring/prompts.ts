import { formatVariableSummary, type VariableSummary } from "../dsl/compact/summary.js";
import { formatKnowledgeBase } from "./knowledge.js";

const RULES = `## Rules
- Answer with exactly three tagged sections: <node_selection>the node types you use, comma-separated</node_selection>, <design_principle>how the workflow meets the instruction</design_principle>, <workflow>the workflow as compact JSON</workflow>.
- Compact JSON: {"nodes_info": [{"id": "1", "type": "start", "title": "Start", "param": {...}}, ...], "edges": [["<source id>", <port index>, "<target id>"], ...]}. "title" is optional.
- Ids are strings: top-level nodes "1", "2", ...; nodes inside an iteration "<iteration id>-1" (the iteration-start), "<iteration id>-2", ...
- List nodes in dependency order (start first, end last); a node may only reference nodes listed before it (an iteration's output_selector may point into its own body).
- Structured references are [variable, node_id] (name first). In text, reference values as {{#'node_id'.variable#}}.
- Every node is on some edge. No edge joins an iteration and its own iteration-start, and no edge crosses an iteration boundary: outside nodes connect to the iteration node, which outputs "output".
- Branches that produce the same value must be merged with a variable-aggregator before being used downstream.
- Workflow apps end in end nodes; declare exactly the inputs and outputs the instruction names, with those exact names.
- Documents must pass through a document-extractor before an LLM reads them.
- Declare in node_selection every node type you use (including start, end, iteration-start) and nothing else.`;

/** How to answer when a current workflow is given: what is not changed must be written back as shown. */
export const EDIT_RULES = `## Editing the current workflow
- Answer the complete workflow. Write every node you keep with its id, type and title as shown; change only what the instruction asks for. Leave out the nodes you remove. New nodes get ids not used yet.
- A node whose param is {"dify": {...}} is shown in its Dify form: keep that form, change only the fields you need, keep the others as they are. Inside it, selectors are [node_id, variable].
- "model" and "code_language" in a param may be left out: the node keeps its own (a new node gets the configured model).
- An edge's port is the index of the source's port (0 for an ordinary node; if-else: case i, then else; question-classifier: class i; a node with error_strategy fail-branch has "fail-branch" after its other ports).`;

export function systemPrompt(): string {
  return `You are Weft's workflow architect. You turn instructions into executable workflows built from the node types below.

## Node types
${formatKnowledgeBase()}

${RULES}`;
}

/** A later turn: the instruction plus the current workflow (as compact JSON) and what it provides. */
export function turnPrompt(instruction: string, current?: { summary: VariableSummary; compact: unknown }): string {
  if (!current) return instruction;
  return `${instruction}

<current_workflow>
${JSON.stringify(current.compact)}
</current_workflow>
<variable_summary>
${formatVariableSummary(current.summary)}
</variable_summary>
${EDIT_RULES}
Return the complete updated workflow. Keep inputs and outputs the instruction does not change; replace outputs when it says "only output", add them when it says "also output".`;
}

export function feedbackPrompt(problems: string[]): string {
  return `Your workflow was checked and has problems. Fix every one and answer again with all three sections.
${problems.map((p) => `- ${p}`).join("\n")}`;
}
