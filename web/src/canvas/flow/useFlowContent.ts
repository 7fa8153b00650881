import { useMemo } from "react";
import { type NodeStatus, useStore } from "../../store";

const NO_MARKS = {};

/**
 * What the canvas shows: the draft, or — while a proposal is reviewed — the proposal, read-only, until it is
 * decided or put aside.
 */
export function useFlowContent() {
  const review = useStore((s) => (s.review && !s.review.hidden ? s.review : undefined));
  const editDraft = useStore((s) => s.draft);
  const editPorts = useStore((s) => s.ports);
  const editDiagnostics = useStore((s) => s.diagnostics);
  const canEdit = useStore((s) => s.can("app.edit"));
  const runStatuses = useStore((s) => s.run.statuses);
  const types = useStore((s) => s.nodeTypes);
  const typeInfo = useMemo(() => new Map(types.map((t) => [t.type, t])), [types]);
  return {
    review,
    draft: review ? review.view.workflow : editDraft,
    ports: review ? review.ports : editPorts,
    diagnostics: review ? review.proposal.diagnostics : editDiagnostics,
    highlights: (review ? review.view.nodes : NO_MARKS) as Record<string, string>,
    edgeMarks: (review ? review.view.edges : NO_MARKS) as Record<string, string>,
    readOnly: !!review || !canEdit,
    statuses: (review ? NO_MARKS : runStatuses) as Record<string, NodeStatus>,
    typeInfo,
  };
}

export type FlowContent = ReturnType<typeof useFlowContent>;
