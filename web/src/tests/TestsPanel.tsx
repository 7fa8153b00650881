import { useCallback, useEffect, useState } from "react";
import { ErrorBox } from "../components/ErrorBox";
import { errText, useStore } from "../store";
import { CaseEditor } from "./CaseEditor";
import { GateSettings } from "./GateSettings";
import { TraceLink } from "./ReportView";
import { RunControls } from "./RunControls";
import { addCase, deleteCase, listCases, updateCase } from "./testsApi";
import type { CaseBody, OutputCheck, TestCase } from "./types";

const brief = (v: unknown, n = 60) => {
  const s = typeof v === "string" ? JSON.stringify(v) : (JSON.stringify(v) ?? "");
  return s.length > n ? `${s.slice(0, n)}…` : s;
};

/** One check in a line: "title contains “refund”". */
export function checkText(c: OutputCheck): string {
  switch (c.check) {
    case "exact":
      return `${c.output} = ${brief(c.value)}`;
    case "contains":
      return `${c.output} contains ${brief(c.value)}`;
    case "regex":
      return `${c.output} matches /${c.pattern}/${c.flags ?? ""}`;
    case "json_schema":
      return `${c.output} fits a JSON Schema`;
    case "number":
      return `${c.output} = ${c.value} ± ${c.tolerance}`;
    case "file_type":
      return `${c.output} is a file (${[c.extension, c.mimeType, c.fileType].filter(Boolean).join(", ")})`;
  }
}

function CaseItem({ c, onEdit, onDelete }: { c: TestCase; onEdit?: () => void; onDelete?: () => void }) {
  return (
    <li className="test-case" data-testid="test-case" data-case-id={c.id} data-case={c.name}>
      <div className="test-case-head">
        <b data-testid="test-case-name">{c.name}</b>
        <span className="spacer" />
        {onEdit && (
          <button type="button" data-testid="test-case-edit" onClick={onEdit}>
            Edit
          </button>
        )}
        {onDelete && (
          <button type="button" data-testid="test-case-delete" onClick={onDelete}>
            Delete
          </button>
        )}
      </div>
      <div className="muted small" data-testid="test-case-inputs">
        inputs {brief(c.inputs, 90)}
        {c.sourceRunId && (
          <>
            {" "}
            · from <TraceLink appId={c.appId} runId={c.sourceRunId} label={`run ${c.sourceRunId.slice(0, 8)}`} />
          </>
        )}
      </div>
      <ul className="test-checks small" data-testid="test-case-checks">
        {c.expect.map((x, i) => (
          <li key={i}>{checkText(x)}</li>
        ))}
        {c.judge && <li>judge: {brief(c.judge.rubric, 80)}</li>}
        {c.expect.length === 0 && !c.judge && (
          <li className="warn-text">no checks: this case passes whenever the run succeeds</li>
        )}
      </ul>
    </li>
  );
}

/**
 * The app's test cases (issue 34): listed with their inputs and checks, made from scratch (or from a run, in
 * the Run panel and Logs), edited and deleted; run on the draft or a version k times; the publish gate.
 */
export function TestsPanel() {
  const app = useStore((s) => s.app)!;
  const canEdit = useStore((s) => s.can("app.edit"));
  const [cases, setCases] = useState<TestCase[]>();
  const [editing, setEditing] = useState<TestCase | "new">();
  const [error, setError] = useState<string>();

  const load = useCallback(async () => {
    try {
      setCases(await listCases(app.id));
    } catch (e) {
      setError(errText(e));
    }
  }, [app.id]);
  useEffect(() => void load(), [load]);

  const save = async (body: CaseBody) => {
    if (editing === "new") await addCase(app.id, body);
    else if (editing) await updateCase(app.id, editing.id, body);
    setEditing(undefined);
    await load();
  };
  const remove = async (c: TestCase) => {
    if (!confirm(`Delete the test case “${c.name}”?`)) return;
    setError(undefined);
    try {
      await deleteCase(app.id, c.id);
      await load();
    } catch (e) {
      setError(`not deleted: ${errText(e)}`);
    }
  };

  if (editing)
    return (
      <CaseEditor
        initial={editing === "new" ? undefined : editing}
        onSave={save}
        onCancel={() => setEditing(undefined)}
      />
    );
  return (
    <div className="tests-panel" data-testid="tests-panel">
      <GateSettings appId={app.id} />
      <ErrorBox error={error} testId="tests-error" />
      <div className="tests-head">
        <b>Test cases ({cases?.length ?? "…"})</b>
        <span className="spacer" />
        {canEdit && (
          <button type="button" data-testid="test-case-new" onClick={() => setEditing("new")}>
            + New case
          </button>
        )}
      </div>
      {cases && cases.length === 0 && (
        <p className="muted small" data-testid="tests-empty">
          No test cases yet. Make one here, or from a run: <b>Save as test case</b> in the Run panel or <b>+ Test</b> on
          a row of Logs.
        </p>
      )}
      <ul className="test-cases">
        {cases?.map((c) => (
          <CaseItem
            key={`${c.id}:${c.updatedAt}`}
            c={c}
            onEdit={canEdit ? () => setEditing(c) : undefined}
            onDelete={canEdit ? () => void remove(c) : undefined}
          />
        ))}
      </ul>
      <RunControls appId={app.id} cases={cases?.length ?? 0} />
    </div>
  );
}
