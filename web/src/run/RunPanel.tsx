import { RotateCcw } from "lucide-react";
import { useState } from "react";
import { api } from "../api";
import { saveNow } from "../draft/autosave";
import { humanize, nodeTitle } from "../labels";
import { type Conversation, useStore } from "../store";
import { SaveAsTest } from "../tests/SaveAsTest";
import type { RunEvent, Workflow } from "../types";
import { Answer } from "./Answer";
import { HumanInputForm } from "./HumanInputForm";
import { RunInputs, type StartVar, toInputs } from "./RunForm";
import { show, TraceView } from "./TraceView";

type Tab = "result" | "trace" | "log";

function eventText(wf: Workflow | undefined, e: RunEvent): string {
  const who = "nodeId" in e && e.nodeId ? ` ${nodeTitle(wf, e.nodeId)}` : "";
  return `${e.type.replace(/_/g, " ")}${who}${"status" in e && e.status ? ` → ${e.status}` : ""}`;
}

/** The log of run events, numbered in a column of their own so numbers of any width stay visible. */
function EventLog({ events, wf }: { events: RunEvent[]; wf?: Workflow }) {
  return (
    <div className="events" data-testid="run-events">
      {events.map((e, i) => (
        <div key={i} className="event" data-testid="run-event">
          <span className="event-n">{i + 1}</span>
          <span className="event-text">{eventText(wf, e)}</span>
        </div>
      ))}
    </div>
  );
}

function ConversationView({
  c,
  onSend,
  running,
}: {
  c: Conversation;
  onSend: (message: string) => void;
  running: boolean;
}) {
  if (!c.turns.length)
    return (
      <p className="muted small">
        Each message runs the chatflow once; conversation variables carry over to the next message until you start a new
        conversation.
      </p>
    );
  return (
    <div className="conversation" data-testid="conversation">
      {c.turns.map((t, i) => (
        <div key={i} className="turn">
          <div className="chat-msg user">{t.query}</div>
          <div
            className={`chat-msg assistant ${t.status === "failed" ? "failed" : ""}`}
            data-testid="chat-answer"
            data-status={t.status}
          >
            {t.answer !== undefined ? (
              <Answer text={t.answer} onSend={i === c.turns.length - 1 ? onSend : undefined} disabled={running} />
            ) : t.status === "failed" ? (
              <span data-testid="turn-error">
                This turn failed{t.error ? `: ${t.error.message}` : ""}
                {t.error?.code && <span className="muted small"> ({t.error.code})</span>}
              </span>
            ) : t.status ? (
              `(${t.status})`
            ) : (
              "…"
            )}
          </div>
        </div>
      ))}
      {c.variables && Object.keys(c.variables).length > 0 && (
        <details className="conv-vars" open data-testid="conversation-variables">
          <summary>Conversation variables after turn {c.dialogueCount}</summary>
          {Object.entries(c.variables).map(([k, v]) => (
            <div key={k} className="conv-var">
              <code>{k}</code> <span>{show(v)}</span>
            </div>
          ))}
        </details>
      )}
    </div>
  );
}

export function RunPanel() {
  const draft = useStore((s) => s.draft);
  const run = useStore((s) => s.run);
  const conversation = useStore((s) => s.conversation);
  const selected = useStore((s) => s.selected);
  const { startRun, newConversation } = useStore.getState();
  const [values, setValues] = useState<Record<string, any>>({});
  const [query, setQuery] = useState("");
  const [tab, setTab] = useState<Tab>("result");
  if (!draft) return null;
  const wf = draft;
  const chat = wf.mode === "advanced-chat";
  const start = wf.nodes.find((n) => n.type === "start");
  const vars = (Array.isArray(start?.config.variables) ? start.config.variables : []) as StartVar[];
  const running = run.status === "running" || run.status === "starting";
  const runWf = run.workflow ?? wf;

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    setTab("result");
    // The run is of the server draft: what is typed last is saved first (a refused save is shown, and the run says why).
    void saveNow().then(() => startRun(toInputs(vars, values), chat ? query : undefined));
    if (chat) setQuery("");
  };

  return (
    <div className="run-panel" data-testid="run-panel">
      {chat && (
        <div className="conv-head">
          <b>Preview conversation</b>
          <span className="spacer" />
          <button
            type="button"
            data-testid="new-conversation"
            disabled={running || conversation.turns.length === 0}
            onClick={newConversation}
          >
            <RotateCcw size={13} /> New conversation
          </button>
        </div>
      )}
      {chat && (
        <ConversationView
          c={conversation}
          running={running}
          onSend={(message) => void saveNow().then(() => startRun(toInputs(vars, values), message))}
        />
      )}
      <form onSubmit={submit}>
        {(!chat || conversation.turns.length === 0) && <RunInputs vars={vars} values={values} onChange={setValues} />}
        {chat && (
          <div className="field">
            <label htmlFor="run-query">Message</label>
            <textarea id="run-query" data-testid="run-query" value={query} onChange={(e) => setQuery(e.target.value)} />
          </div>
        )}
        <p className="muted small">Runs the draft as it is now (end users run the published version).</p>
        <button type="submit" data-testid="run-button" disabled={running}>
          {running ? "Running…" : chat ? "Send" : "Run draft"}
        </button>
        {running && run.runId && (
          <button
            type="button"
            data-testid="cancel-run"
            onClick={() => void api(`/api/runs/${run.runId}/cancel`, { method: "POST" }).catch(() => {})}
          >
            Stop
          </button>
        )}
      </form>
      {run.status && (
        <div className="run-result" data-testid="run-result" data-status={run.status}>
          <div className="run-tabs">
            {(["result", "trace", "log"] as Tab[]).map((t) => (
              <button
                type="button"
                key={t}
                className={tab === t ? "active" : ""}
                data-testid={`run-tab-${t}`}
                onClick={() => setTab(t)}
              >
                {t === "result" ? "Result" : t === "trace" ? `Trace (${run.trace.length})` : "Log"}
              </button>
            ))}
            <span className="spacer" />
            <span className={`pill st-${run.status}`}>{run.status}</span>
          </div>
          {tab === "result" && (
            <>
              {run.status === "paused" && run.forms?.map((f) => <HumanInputForm key={f.id} form={f} />)}
              {run.error && (
                <div className="diag error boxed" data-testid="run-error">
                  {run.error.nodeId && <b>{nodeTitle(runWf, run.error.nodeId)}: </b>}
                  {humanize(runWf, run.error.message)} <span className="muted small">({run.error.code})</span>
                </div>
              )}
              {run.runId && (run.status === "succeeded" || run.status === "partial-succeeded") && (
                <SaveAsTest key={run.runId} runId={run.runId} />
              )}
              {run.outputs && (
                <div className="outputs" data-testid="run-outputs">
                  {Object.entries(run.outputs).map(([k, v]) => (
                    <div key={k} className="output">
                      <b>{k}</b>
                      <pre>{show(v)}</pre>
                    </div>
                  ))}
                </div>
              )}
            </>
          )}
          {tab === "trace" && (
            <TraceView
              trace={run.trace}
              wf={runWf}
              only={selected && run.trace.some((t) => t.nodeId === selected) ? selected : undefined}
            />
          )}
          {tab === "log" && <EventLog events={run.events} wf={runWf} />}
        </div>
      )}
    </div>
  );
}
