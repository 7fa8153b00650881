/** Converts Weft's provider-neutral chat messages into the AI SDK's message shapes. */
import type { FilePart, ModelMessage, TextPart, ToolCallPart, ToolResultPart } from "ai";
import type { ChatContentPart, ChatMessage } from "../ir/services.js";
import { LlmError } from "./errors.js";

export function toModelMessages(messages: ChatMessage[]): ModelMessage[] {
  // Tool results must name their tool; remember the names the assistant used for each call id.
  const toolNames = new Map<string, string>();
  return messages.map((m, index): ModelMessage => {
    switch (m.role) {
      case "system":
        return { role: "system", content: textOf(m.content) };
      case "user":
        return { role: "user", content: typeof m.content === "string" ? m.content : m.content.map(userPart) };
      case "assistant": {
        const calls = m.toolCalls ?? [];
        if (!calls.length) return { role: "assistant", content: textOf(m.content) };
        const parts: Array<TextPart | ToolCallPart> = [];
        const text = textOf(m.content);
        if (text) parts.push({ type: "text", text });
        for (const c of calls) {
          toolNames.set(c.id, c.name);
          parts.push({ type: "tool-call", toolCallId: c.id, toolName: c.name, input: c.arguments });
        }
        return { role: "assistant", content: parts };
      }
      case "tool": {
        if (!m.toolCallId) {
          throw new LlmError("llm.bad_request", `messages[${index}]: a tool message needs toolCallId`, { index });
        }
        const part: ToolResultPart = {
          type: "tool-result",
          toolCallId: m.toolCallId,
          toolName: toolNames.get(m.toolCallId) ?? "tool",
          output: { type: "text", value: textOf(m.content) },
        };
        return { role: "tool", content: [part] };
      }
      default:
        throw new LlmError("llm.bad_request", `messages[${index}]: unknown role "${String((m as ChatMessage).role)}"`, {
          index,
        });
    }
  });
}

function textOf(content: ChatMessage["content"]): string {
  if (typeof content === "string") return content;
  return content
    .filter((p): p is Extract<ChatContentPart, { type: "text" }> => p.type === "text")
    .map((p) => p.text)
    .join("");
}

function userPart(p: ChatContentPart): TextPart | FilePart {
  if (p.type === "text") return { type: "text", text: p.text };
  const data = typeof p.data === "string" && /^https?:\/\//i.test(p.data) ? new URL(p.data) : p.data;
  return { type: "file", data, mediaType: p.mediaType, ...(p.filename ? { filename: p.filename } : {}) };
}
