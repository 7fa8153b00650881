import { useState } from "react";
import { ApiFailure, api } from "../api";
import { DiagMessage } from "../components/DiagMessage";
import { errText, useStore } from "../store";
import type { AppInfo, Diagnostic } from "../types";
import { saveNow } from "./autosave";

interface Refusal {
  text: string;
  diagnostics: Diagnostic[];
}

/** Publish: the saved draft becomes the version end users run, only when the analyser finds no errors. */
export function PublishButton() {
  const app = useStore((s) => s.app)!;
  const saved = useStore((s) => s.saved);
  const dirty = useStore((s) => s.dirty);
  const draft = useStore((s) => s.draft);
  const mayPublish = useStore((s) => s.can("app.publish"));
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal>();
  const live = app.publishedVersion;
  const upToDate = live !== undefined && !dirty && saved?.version === live;

  const publish = async () => {
    setBusy(true);
    setRefusal(undefined);
    try {
      if (!(await saveNow())) {
        setRefusal({
          text: "The draft is not saved (see the save status), so nothing was published.",
          diagnostics: [],
        });
        return;
      }
      const r = await api<{ app: AppInfo; published: number; created: boolean; warnings: Diagnostic[] }>(
        `/api/apps/${app.id}/publish`,
        { json: {} },
      );
      useStore.setState({ app: r.app });
      // A changed draft became a new version, which is the draft's new base.
      if (r.created) await useStore.getState().reloadWorkflow();
      await useStore.getState().loadVersions();
      const warnings = r.warnings.filter((d) => d.severity === "warning").length;
      useStore
        .getState()
        .say("ok", `Published version ${r.published}${warnings ? ` with ${warnings} warning(s)` : ""}.`);
    } catch (e) {
      setRefusal({
        text: errText(e),
        diagnostics: e instanceof ApiFailure ? e.diagnostics.filter((d) => d.severity === "error") : [],
      });
    } finally {
      setBusy(false);
    }
  };

  return (
    <>
      <span className="muted" data-testid="publish-state" data-published={live ?? ""}>
        {live === undefined
          ? "not published"
          : upToDate
            ? `published v${live}`
            : `published v${live} · draft has changes`}
      </span>
      <button
        type="button"
        className="primary"
        data-testid="publish"
        disabled={busy || !mayPublish}
        title={mayPublish ? undefined : "Your role may not publish"}
        onClick={() => void publish()}
      >
        {busy ? "Publishing…" : "Publish"}
      </button>
      {refusal && (
        <div className="publish-refused boxed" data-testid="publish-refused">
          <div className="publish-refused-head">
            <b>Not published.</b> {refusal.text}
            <button type="button" className="link-btn small" onClick={() => setRefusal(undefined)}>
              close
            </button>
          </div>
          {refusal.diagnostics.length > 0 && (
            <ul className="diag-list">
              {refusal.diagnostics.map((d, i) => (
                <li key={i} className={`diag ${d.severity}`} data-testid="publish-diagnostic">
                  <DiagMessage wf={draft} message={d.nodeId ? `${d.nodeId}: ${d.message}` : d.message} />{" "}
                  <span className="muted small">({d.code})</span>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </>
  );
}
