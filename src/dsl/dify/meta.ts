import type { Workflow } from "../../ir/workflow.js";
import { isRecord, type Json } from "./util.js";

/**
 * What a Dify document carries besides the executable graph, kept in `workflow.meta.dify` so export can restore
 * it. `app` is the whole app block; its name/mode/description equal the workflow's at import, and on export the
 * workflow's values win (so a rename in the IR is what gets exported).
 */
export interface DifyMeta {
  version: string;
  kind: string;
  app: Json;
  dependencies?: unknown;
  viewport: unknown;
  rag_pipeline_variables?: unknown;
  /** Sticky notes (`custom-note` canvas nodes), verbatim and in document order. */
  notes: unknown[];
  /** Unknown keys of the document, of `workflow` and of `workflow.graph`. */
  extra?: Json;
  workflowExtra?: Json;
  graphExtra?: Json;
}

export function difyMetaOf(wf: Workflow): Partial<DifyMeta> | undefined {
  const m = wf.meta?.dify;
  return isRecord(m) ? (m as Partial<DifyMeta>) : undefined;
}
