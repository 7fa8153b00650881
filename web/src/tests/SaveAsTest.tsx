import { useState } from "react";
import { errText, useStore } from "../store";
import { addCaseFromRun } from "./testsApi";

/**
 * One click from a finished run to a test case: the run's inputs, its outputs as exact checks (loosen them in
 * Tests). Said where it was clicked; a run that did not succeed is refused by the server, and that is shown.
 */
export function SaveAsTest({ runId, compact = false }: { runId: string; compact?: boolean }) {
  const app = useStore((s) => s.app)!;
  const canEdit = useStore((s) => s.can("app.edit"));
  const [state, setState] = useState<
    { kind: "idle" | "busy" } | { kind: "done"; name: string } | { kind: "error"; text: string }
  >({ kind: "idle" });
  if (!canEdit) return null;
  const save = async () => {
    setState({ kind: "busy" });
    try {
      const c = await addCaseFromRun(app.id, runId);
      setState({ kind: "done", name: c.name });
      useStore.getState().say("ok", `Test case “${c.name}” saved from the run; edit its checks in Tests.`);
    } catch (e) {
      setState({ kind: "error", text: errText(e) });
    }
  };
  return (
    <span className="save-as-test" data-testid="save-as-test" data-state={state.kind}>
      <button
        type="button"
        data-testid="save-as-test-button"
        disabled={state.kind === "busy" || state.kind === "done"}
        title="A test case with this run's inputs and its outputs as the expectation"
        onClick={() => void save()}
      >
        {state.kind === "done" ? "✓ Test saved" : compact ? "+ Test" : "Save as test case"}
      </button>
      {state.kind === "error" && (
        <span className="err-text small" data-testid="save-as-test-error">
          {" "}
          {state.text}
        </span>
      )}
    </span>
  );
}
