import type { DifyEvent } from "./translate.js";

type Data = Record<string, unknown>;

/**
 * A blocking workflow run that paused, as Dify's WorkflowAppPausedBlockingResponse sends it: the run's own
 * fields (id, workflow_id, error, finished_at null) with the pause's nodes and reasons, whose `form_token`
 * is what a blocking client answers the form with.
 */
export function workflowPausedBlocking(paused: DifyEvent, workflowId: string): Data {
  const d = paused.data as Data;
  return {
    id: d.workflow_run_id,
    workflow_id: workflowId,
    status: "paused",
    outputs: {},
    error: null,
    elapsed_time: d.elapsed_time,
    total_tokens: d.total_tokens,
    total_steps: d.total_steps,
    created_at: d.created_at,
    finished_at: null,
    paused_nodes: d.paused_nodes,
    reasons: d.reasons,
  };
}

/** A blocking chat turn that paused, as Dify's AdvancedChatPausedBlockingResponse sends it. */
export function chatPausedBlocking(
  paused: DifyEvent,
  turn: { messageId: string; conversationId: string; answer: string; usage: unknown; createdAt: number },
): Data {
  const d = paused.data as Data;
  const common = {
    id: turn.messageId,
    mode: "advanced-chat",
    conversation_id: turn.conversationId,
    message_id: turn.messageId,
    answer: turn.answer,
    metadata: { usage: turn.usage, retriever_resources: [] },
    created_at: turn.createdAt,
    workflow_run_id: d.workflow_run_id,
  };
  return {
    event: "workflow_paused",
    task_id: d.workflow_run_id,
    ...common,
    data: {
      ...common,
      paused_nodes: d.paused_nodes,
      reasons: d.reasons,
      status: "paused",
      elapsed_time: d.elapsed_time,
      total_tokens: d.total_tokens,
      total_steps: d.total_steps,
    },
  };
}
