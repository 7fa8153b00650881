import { useEffect, useRef, useState } from "react";
import { api } from "../api";
import { type ChatEntry, useStore } from "../store";
import type { ProposalDecision, TurnOutcome } from "../types";
import { DiagLine } from "./DiagList";

interface ModelsInfo {
  configured: boolean;
  default: string | null;
  endpoints: Array<{ name: string; provider: string; model: string | null; baseURL: string | null }>;
}

function ModelLine() {
  const [info, setInfo] = useState<ModelsInfo>();
  useEffect(() => {
    api<ModelsInfo>("/api/models").then(setInfo, () => {});
  }, []);
  if (!info) return null;
  if (!info.configured)
    return (
      <p className="warn-text" data-testid="models">
        No model is configured on the server, so the agent cannot answer (see weft.config.json or WEFT_LLM_*).
      </p>
    );
  const ep = info.endpoints.find((e) => e.name === info.default) ?? info.endpoints[0];
  return (
    <p className="muted" data-testid="models">
      Agent model: {ep ? `${ep.name} (${ep.provider}${ep.model ? `, ${ep.model}` : ""})` : "none"}
    </p>
  );
}

/** A proposing turn's line: what became of its proposal, not only what the turn did when it ended. */
function proposalLine(
  o: Extract<TurnOutcome, { kind: "proposed" | "applied" }>,
  d: ProposalDecision | undefined,
): string {
  const applied = (rev?: number, version?: number) =>
    rev !== undefined
      ? `Applied to the draft (revision ${rev})`
      : version !== undefined
        ? `Applied as version ${version}`
        : "Applied";
  if (o.kind === "applied" && !d) return `${applied(o.revision, o.version)}: ${o.summary}`;
  switch (d?.status) {
    case "applied":
      return `${applied(d.appliedRevision, d.appliedVersion)}${d.undone ? ", then undone" : ""}: ${o.summary}`;
    case "rejected":
      return `Rejected, nothing changed: ${o.summary}`;
    case "superseded":
      return `Not applied: superseded (the draft it was made for changed): ${o.summary}`;
    default:
      return `Proposed, not applied yet: ${o.summary}`;
  }
}

/** What the turn really did, under the reply: a rejected update lists its diagnostics and says nothing changed. */
function Outcome({ m }: { m: ChatEntry }) {
  const wf = useStore((s) => s.draft);
  const o = m.outcome;
  if (!o) return null;
  return (
    <div
      className={`chat-outcome oc-${o.kind}`}
      data-testid="chat-outcome"
      data-kind={o.kind}
      data-decision={m.decision?.status}
    >
      {(o.kind === "proposed" || o.kind === "applied") && <span>{proposalLine(o, m.decision)}</span>}
      {(o.kind === "rejected" || o.kind === "unchanged") && <b>{o.summary}</b>}
      {o.kind === "rejected" && (
        <ul className="diag-list" data-testid="chat-outcome-diags">
          {o.diagnostics.map((d, i) => (
            <li key={i} className={`diag ${d.severity}`}>
              <DiagLine wf={wf} d={d} />
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

export function ChatPanel() {
  const chat = useStore((s) => s.chat);
  const [text, setText] = useState("");
  const end = useRef<HTMLDivElement>(null);
  // biome-ignore lint/correctness/useExhaustiveDependencies: scrolls to the end each time an entry arrives
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [chat.entries.length]);
  const send = (e: React.FormEvent) => {
    e.preventDefault();
    if (!text.trim()) return;
    void useStore.getState().sendChat(text.trim());
    setText("");
  };
  return (
    <div className="chat-panel" data-testid="chat-panel">
      <ModelLine />
      <div className="chat-log">
        {chat.entries.length === 0 && <p className="muted">Ask the agent to build or change this workflow.</p>}
        {chat.entries.map((m, i) => (
          <div
            key={i}
            className={`chat-msg ${m.role} ${m.notApplied ? "not-applied" : ""}`}
            data-testid={`chat-${m.role}`}
            data-not-applied={m.notApplied ? "true" : undefined}
          >
            {m.notApplied && (
              <span className="not-applied-tag" data-testid="not-applied">
                Not applied
              </span>
            )}
            {m.text}
            <Outcome m={m} />
          </div>
        ))}
        <div ref={end} />
      </div>
      <form onSubmit={send} className="chat-form">
        <textarea
          data-testid="chat-input"
          value={text}
          placeholder="e.g. add a step that wraps the result in brackets"
          onChange={(e) => setText(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) send(e);
          }}
        />
        <button type="submit" data-testid="chat-send" disabled={chat.busy}>
          {chat.busy ? "Working…" : "Send"}
        </button>
      </form>
    </div>
  );
}
