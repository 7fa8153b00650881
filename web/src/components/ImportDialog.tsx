import { Upload, X } from "lucide-react";
import { useRef, useState } from "react";
import { ApiFailure } from "../api";
import { nodeTitle } from "../labels";
import { errText } from "../store";
import type { Diagnostic, ImportResult } from "../types";
import { DiagMessage } from "./DiagMessage";

type Outcome =
  | { kind: "failed"; code: string; message: string; diagnostics: Diagnostic[] }
  | { kind: "done"; result: ImportResult };

/**
 * Import a Dify DSL file (chosen or pasted). Errors and warnings stay in this dialog, which owns them: closing
 * it forgets them, so they never show up in another view.
 */
export function ImportDialog({
  title,
  onImport,
  onOpen,
  onClose,
}: {
  title: string;
  onImport: (yaml: string) => Promise<ImportResult>;
  onOpen: (r: ImportResult) => void;
  onClose: () => void;
}) {
  const file = useRef<HTMLInputElement>(null);
  const [text, setText] = useState("");
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<Outcome>();
  const [sent, setSent] = useState("");

  const run = async (yaml: string) => {
    setBusy(true);
    setOutcome(undefined);
    setSent(yaml);
    try {
      const result = await onImport(yaml);
      const problems = result.warnings.length + result.diagnostics.filter((d) => d.severity !== "info").length;
      // A clean import opens at once; one with warnings or errors shows them here first.
      if (problems === 0) onOpen(result);
      else setOutcome({ kind: "done", result });
    } catch (e) {
      setOutcome(
        e instanceof ApiFailure
          ? { kind: "failed", code: e.code, message: e.message, diagnostics: e.diagnostics }
          : { kind: "failed", code: "ui", message: errText(e), diagnostics: [] },
      );
    } finally {
      setBusy(false);
    }
  };

  const report = outcome?.kind === "done" ? outcome.result : undefined;
  const errors = report?.diagnostics.filter((d) => d.severity === "error") ?? [];
  const warnings = [
    ...(report?.warnings ?? []),
    ...(report?.diagnostics.filter((d) => d.severity === "warning") ?? []),
  ];
  return (
    // biome-ignore lint/a11y/noStaticElementInteractions: a press outside the dialog closes it; the Close button is the keyboard path
    <div className="modal-back" onMouseDown={onClose}>
      <div
        className="modal"
        role="dialog"
        aria-label={title}
        data-testid="import-dialog"
        onMouseDown={(e) => e.stopPropagation()}
      >
        <div className="modal-head">
          <h3>{title}</h3>
          <button type="button" className="icon-btn" title="Close" data-testid="import-close" onClick={onClose}>
            <X size={16} />
          </button>
        </div>
        {/* biome-ignore lint/a11y/noStaticElementInteractions lint/a11y/useKeyWithClickEvents: a pointer target that opens the hidden file input */}
        <div className="drop" onClick={() => file.current?.click()}>
          <Upload size={18} />
          <span>{name ? name : "Choose a Dify DSL file (.yml)"}</span>
        </div>
        <input
          ref={file}
          data-testid="import-file"
          type="file"
          accept=".yml,.yaml,.json,text/yaml"
          hidden
          onChange={async (e) => {
            const f = e.target.files?.[0];
            e.target.value = "";
            if (!f) return;
            setName(f.name);
            void run(await f.text());
          }}
        />
        <details>
          <summary>or paste YAML</summary>
          <textarea
            data-testid="import-text"
            rows={8}
            value={text}
            onChange={(e) => setText(e.target.value)}
            placeholder="app:&#10;  mode: workflow&#10;workflow:&#10;  graph: …"
          />
          <button
            type="button"
            disabled={busy || !text.trim()}
            onClick={() => void run(text)}
            data-testid="import-paste"
          >
            Import
          </button>
        </details>
        {busy && <p className="muted">Importing…</p>}
        {outcome?.kind === "failed" && (
          <div className="import-error" data-testid="import-error">
            <b>Import failed</b>
            <div>{outcome.message}</div>
            <SourceExcerpt text={sent} message={outcome.message} />
            <div className="muted small">{outcome.code}</div>
            {outcome.diagnostics.map((d, i) => (
              <div key={i} className={`diag ${d.severity}`}>
                {d.message}
              </div>
            ))}
          </div>
        )}
        {report && (
          <div className="import-report" data-testid="import-report">
            <div className="import-report-head">
              <b>Imported "{report.app?.name ?? "this file"}"</b>
              <button type="button" data-testid="import-open" onClick={() => onOpen(report)}>
                Open
              </button>
            </div>
            {errors.length > 0 && <p className="diag error">{errors.length} error(s) to fix before it can run:</p>}
            <ul className="diag-list">
              {errors.map((d, i) => (
                <li key={`e${i}`} className="diag error">
                  {d.nodeId && <b>{nodeTitle(report.workflow, d.nodeId)}: </b>}
                  <DiagMessage wf={report.workflow} message={d.message} />
                </li>
              ))}
              {warnings.map((d, i) => (
                <li key={`w${i}`} className="diag warning" data-testid="import-warning">
                  {d.nodeId && <b>{nodeTitle(report.workflow, d.nodeId)}: </b>}
                  <DiagMessage wf={report.workflow} message={d.message} />
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </div>
  );
}

/** The lines around "line N, column M" of a message, from the text that was sent, with a caret under the column. */
function SourceExcerpt({ text, message }: { text: string; message: string }) {
  const m = /at line (\d+), column (\d+)/.exec(message);
  if (!m || !text) return null;
  const line = Number(m[1]);
  const col = Number(m[2]);
  const lines = text.split(/\r?\n/);
  if (line < 1 || line > lines.length) return null;
  const from = Math.max(1, line - 2);
  const width = String(line).length;
  const shown = lines.slice(from - 1, line).map((l, i) => `${String(from + i).padStart(width)} | ${l}`);
  shown.push(`${" ".repeat(width)} | ${" ".repeat(Math.max(0, col - 1))}^`);
  return (
    <pre className="source-excerpt" data-testid="import-excerpt">
      {shown.join("\n")}
    </pre>
  );
}
