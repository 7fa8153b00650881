import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { FormAction, FormInputDef } from "../ir/services.js";

/** A form a paused run waits on, as the MCP result describes it. */
export interface WaitingForm {
  id: string;
  nodeId: string;
  nodeTitle: string;
  content: string;
  inputs: FormInputDef[];
  actions: FormAction[];
  expiresAt: number | null;
}

/** Where a paused run's forms are and how this transport's client answers one (a URL, a command). */
export interface PauseInfo {
  forms(runId: string): Promise<WaitingForm[]>;
  howToAnswer(runId: string, form: WaitingForm): string;
}

/**
 * A run that paused on a human-input node is not a result: the tool call answers `isError` saying so, with
 * each waiting form (its text, actions and inputs) and how to answer it; once answered, the run continues on
 * the server and its result is in the run log (`_meta.runId`).
 */
export async function pausedResult(runId: string, info: PauseInfo | undefined): Promise<CallToolResult> {
  const forms = info ? await info.forms(runId) : [];
  const lines = [`run ${runId} paused: it waits for a human answer before it can return a result.`];
  for (const f of forms) {
    lines.push(
      "",
      `form "${f.nodeTitle}" (node ${f.nodeId}, form ${f.id}):`,
      f.content,
      `actions: ${f.actions.map((a) => `${a.id} ("${a.title}")`).join(", ") || "none"}`,
      `inputs: ${f.inputs.map((i) => `${i.output_variable_name} (${i.type})`).join(", ") || "none"}`,
      ...(f.expiresAt === null ? [] : [`expires: ${new Date(f.expiresAt).toISOString()}`]),
      `answer it: ${info!.howToAnswer(runId, f)}`,
    );
  }
  if (forms.length === 0) lines.push("no waiting form was found for it (it may have been answered meanwhile).");
  return {
    isError: true,
    content: [{ type: "text", text: lines.join("\n") }],
    _meta: { runId, status: "paused", forms: forms.map((f) => ({ id: f.id, nodeId: f.nodeId })) },
  };
}
