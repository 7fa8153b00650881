import { useEffect, useRef, useState } from "react";
import { useStore } from "../store";

export function ChatPanel() {
  const chat = useStore((s) => s.chat);
  const [text, setText] = useState("");
  const end = useRef<HTMLDivElement>(null);
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
      <div className="chat-log">
        {chat.entries.length === 0 && <p className="muted">Ask the agent to build or change this workflow.</p>}
        {chat.entries.map((m, i) => (
          <div key={i} className={`chat-msg ${m.role}`} data-testid={`chat-${m.role}`}>
            {m.text}
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
