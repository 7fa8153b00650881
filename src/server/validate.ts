import { analyse } from "../analysis/index.js";
import { parseWeftObject } from "../dsl/load.js";
import { type Diagnostic, hasErrors } from "../ir/diagnostics.js";
import { WeftError } from "../ir/errors.js";
import type { NodeTypes } from "../ir/registry.js";
import type { AppMode, Workflow } from "../ir/workflow.js";
import { nodeCatalogue } from "../nodes/index.js";
import { ApiError } from "./errors.js";

/** A `workflow` field of a request body read as Weft JSON; schema problems are a 422 naming each path. */
export function parseWorkflowBody(raw: unknown): Workflow {
  if (raw === undefined)
    throw new ApiError(400, "request.missing_workflow", "the body needs a `workflow` object (Weft JSON)");
  try {
    return parseWeftObject(raw).workflow;
  } catch (e) {
    if (e instanceof WeftError) {
      const issues = (e.details.issues as Array<{ path: string; message: string }> | undefined) ?? [];
      const diagnostics: Diagnostic[] = issues.map((i) => ({
        code: "schema.invalid",
        severity: "error",
        message: `${i.path}: ${i.message}`,
        field: i.path,
      }));
      throw new ApiError(422, e.code, e.message, diagnostics);
    }
    throw e;
  }
}

/** Schema check then analysis; a workflow with analyser errors is refused with 422 and every diagnostic. */
export function validateWorkflow(
  raw: unknown,
  mode?: AppMode,
  types: NodeTypes = nodeCatalogue,
): { workflow: Workflow; diagnostics: Diagnostic[] } {
  const workflow = parseWorkflowBody(raw);
  if (mode && workflow.mode !== mode) {
    throw new ApiError(422, "workflow.mode_mismatch", `this app is a ${mode} app; the workflow is ${workflow.mode}`);
  }
  const diagnostics = analyse(workflow, types).diagnostics;
  if (hasErrors(diagnostics)) {
    const n = diagnostics.filter((d) => d.severity === "error").length;
    throw new ApiError(422, "workflow.invalid", `the workflow has ${n} error(s); nothing was saved`, diagnostics);
  }
  return { workflow, diagnostics };
}

/** A minimal valid workflow for a new app. */
export function blankWorkflow(name: string, mode: AppMode): Workflow {
  const start = {
    id: "start",
    type: "start",
    title: "Start",
    config: { variables: [{ variable: "text", label: "Text", type: "paragraph", required: true }] },
  };
  const tail =
    mode === "advanced-chat"
      ? { id: "answer", type: "answer", title: "Answer", config: { answer: "{{#start.text#}}" } }
      : {
          id: "end",
          type: "end",
          title: "End",
          config: { outputs: [{ variable: "result", value_selector: ["start", "text"], value_type: "string" }] },
        };
  return parseWeftObject({ weft: 1, name, mode, nodes: [start, tail], edges: [{ source: "start", target: tail.id }] })
    .workflow;
}
