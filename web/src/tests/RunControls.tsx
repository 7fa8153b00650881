import { useEffect, useState } from "react";
import { ErrorBox } from "../components/ErrorBox";
import { saveNow } from "../draft/autosave";
import { errText, useStore } from "../store";
import { CountInput } from "./CountInput";
import { ReportView } from "./ReportView";
import { runTests } from "./testsApi";
import type { TestReport } from "./types";

/** Run every case on the draft or a version, k times each; the report below. */
export function RunControls({ appId, cases }: { appId: string; cases: number }) {
  const canRun = useStore((s) => s.can("app.run"));
  const versions = useStore((s) => s.versions);
  const [target, setTarget] = useState("draft");
  const [k, setK] = useState("1");
  const [busy, setBusy] = useState(false);
  const [report, setReport] = useState<TestReport>();
  const [error, setError] = useState<string>();
  useEffect(() => {
    if (versions.length === 0)
      void useStore
        .getState()
        .loadVersions()
        .catch(() => undefined);
  }, [versions.length]);

  const run = async () => {
    setError(undefined);
    const kn = Number(k);
    if (!Number.isInteger(kn) || kn < 1 || kn > 100)
      return setError(`k must be a whole number from 1 to 100, not ${JSON.stringify(k)}`);
    setBusy(true);
    try {
      // The draft as the editor has it: what is typed last is saved first.
      if (target === "draft") await saveNow();
      setReport(
        await runTests(appId, target === "draft" ? { draft: true, k: kn } : { version: Number(target), k: kn }),
      );
    } catch (e) {
      setError(errText(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="test-run" data-testid="test-run">
      <div className="test-run-controls">
        <select
          value={target}
          onChange={(e) => setTarget(e.target.value)}
          data-testid="test-target"
          aria-label="what to test"
        >
          <option value="draft">the draft</option>
          {[...versions].reverse().map((v) => (
            <option key={v.version} value={String(v.version)}>
              version {v.version}
              {v.published ? " (published)" : ""}
            </option>
          ))}
        </select>
        {/* biome-ignore lint/a11y/noLabelWithoutControl: CountInput renders the input this label names */}
        <label className="small">
          k <CountInput value={k} onChange={setK} testId="test-k" label="runs per case" />
        </label>
        <button
          type="button"
          className="primary"
          data-testid="test-run-button"
          disabled={busy || !canRun || cases === 0}
          onClick={() => void run()}
        >
          {busy ? "Running…" : `Run ${cases} case(s)`}
        </button>
      </div>
      <ErrorBox error={error} testId="test-run-error" />
      {report && !busy && <ReportView report={report} />}
    </div>
  );
}
