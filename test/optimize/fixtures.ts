/**
 * A small deterministic tool environment (a people directory) and a scripted executor model for the
 * miner and optimiser tests. The executor answers over HTTP through the replay server: it reads the
 * request like a model would (offered tools, context text) and replies deterministically.
 */
import { WeftError } from "../../src/ir/errors.js";
import type { ToolInvocation, ToolResult, ToolService, ToolSpec } from "../../src/ir/services.js";
import type { TaskRecord } from "../../src/mine/records.js";
import type { RecordedRequest, Reply } from "../support/replay-server.js";
import { reply } from "../support/replay-server.js";

export const PEOPLE = ["alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy"];
export const phoneOf = (name: string) => `555-${String(1000 + name.length * 97 + name.charCodeAt(0)).slice(-4)}`;

export const TOOL_SPECS: ToolSpec[] = [
  {
    name: "find_person",
    description: "Find a person's id by name",
    parameters: {
      type: "object",
      properties: { name: { type: "string" } },
      required: ["name"],
      additionalProperties: false,
    },
  },
  {
    name: "get_phone",
    description: "Phone number of a person id",
    parameters: {
      type: "object",
      properties: { id: { type: "string", pattern: "^P-" } },
      required: ["id"],
      additionalProperties: false,
    },
  },
  {
    name: "get_email",
    description: "Email address of a person id",
    parameters: {
      type: "object",
      properties: { id: { type: "string", pattern: "^P-" } },
      required: ["id"],
      additionalProperties: false,
    },
  },
];

export class DirectoryTools implements ToolService {
  calls: ToolInvocation[] = [];
  list(): ToolSpec[] {
    return structuredClone(TOOL_SPECS);
  }
  async invoke(inv: ToolInvocation): Promise<ToolResult> {
    this.calls.push(inv);
    const p = inv.parameters as Record<string, string>;
    const out = (v: unknown): ToolResult => ({ text: JSON.stringify(v), files: [], json: [v] });
    switch (inv.toolName) {
      case "find_person":
        if (!PEOPLE.includes(p.name ?? "")) throw new WeftError("directory.not_found", `nobody called ${p.name}`);
        return out({ id: `P-${p.name}` });
      case "get_phone":
        return out({ phone: phoneOf(String(p.id).slice(2)) });
      case "get_email":
        return out({ email: `${String(p.id).slice(2)}@example.com` });
      default:
        throw new WeftError("directory.unknown_tool", `no tool ${inv.toolName}`);
    }
  }
}

export function phoneRecords(): TaskRecord[] {
  return PEOPLE.map((name) => ({
    id: `phone-${name}`,
    query: `What is the phone number of ${name}?`,
    reference: `The phone number of ${name} is ${phoneOf(name)}.`,
    calls: [
      { tool: "find_person", arguments: { name } },
      { tool: "get_phone", arguments: { id: `P-${name}` } },
    ],
  }));
}

function text(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) return content.map((p) => (typeof p?.text === "string" ? p.text : "")).join("");
  return "";
}

/** The executor model: tool calls from the context, a fixed plan, answers built from tool results. */
export function executorReply(req: RecordedRequest): Reply {
  const msgs: Array<{ role: string; content: unknown }> = req.body?.messages ?? [];
  const all = msgs.map((m) => text(m.content)).join("\n");
  const tools: string[] = (req.body?.tools ?? []).map((t: any) => t.function?.name ?? t.name);
  if (tools.length > 0) {
    const tool = tools[0]!;
    if (tool === "find_person") {
      const name = all.match(/(?:of|for) (\w+)\?/)?.[1] ?? "";
      return reply.toolCall(tool, { name });
    }
    const id = all.match(/"id":"(P-\w+)"/)?.[1];
    return reply.toolCall(tool, id ? { id } : {});
  }
  const system = text(msgs[0]?.content);
  if (/plan/i.test(system) && !/Answer/.test(system)) return reply.text("1. find_person 2. get_phone");
  const phone = all.match(/555-\d{4}/)?.[0];
  const name = all.match(/Task: .*?(?:of|for) (\w+)\?/)?.[1] ?? "them";
  return reply.text(
    phone ? `The phone number of ${name} is ${phone}.` : `I could not find the phone number of ${name}.`,
  );
}

export const EXECUTOR = "executor";
export const OPTIMISER = "optimiser";
export const isExecutor = (r: RecordedRequest) => r.model === EXECUTOR;
