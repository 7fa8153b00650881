import { nodeTitle } from "../labels";
import { useStore } from "../store";
import type { Diagnostic, Workflow } from "../types";
import { DiagMessage } from "./DiagMessage";

/** A diagnostic as one line: the title of its node, the message, the code. */
export function DiagLine({ wf, d }: { wf?: Workflow; d: Diagnostic }) {
  return (
    <>
      {d.nodeId && <b>{nodeTitle(wf, d.nodeId)}: </b>}
      <DiagMessage wf={wf} message={d.message} /> <span className="muted small">({d.code})</span>
    </>
  );
}

/** Diagnostics, a line each; a click on one selects its node. */
export function DiagList({ wf, diagnostics, testId }: { wf?: Workflow; diagnostics: Diagnostic[]; testId?: string }) {
  return (
    <ul className="diag-list" data-testid={testId}>
      {diagnostics.map((d, i) => (
        // biome-ignore lint/a11y/useKeyWithClickEvents: a pointer shortcut to the problem's node, which the canvas selects too
        <li key={i} className={`diag ${d.severity}`} onClick={() => d.nodeId && useStore.getState().select(d.nodeId)}>
          <DiagLine wf={wf} d={d} />
        </li>
      ))}
    </ul>
  );
}
