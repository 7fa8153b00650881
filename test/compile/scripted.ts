import { createLlmService } from "../../src/llm/index.js";
import { type RecordedRequest, type ReplayServer, type Reply, reply } from "../support/replay-server.js";

/** Which compile stage (or the compiled workflow at run time) a request to the replay server comes from. */
export type Kind = "source" | "draft" | "revise" | "repair" | "judge" | "runtime";

function text(m: { content?: unknown } | undefined): string {
  if (!m) return "";
  return typeof m.content === "string" ? m.content : JSON.stringify(m.content ?? "");
}

export function classify(req: RecordedRequest): Kind {
  const messages = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  const system = text(messages.find((m) => m.role === "system"));
  const lastUser = text([...messages].reverse().find((m) => m.role === "user"));
  if (system.includes("# Task: extract the decision logic")) return "source";
  if (system.includes("# Task: obligation check")) return "judge";
  if (system.includes("# Task: draft an artifact-driven workflow")) {
    if (lastUser.includes("# Revision request")) return "revise";
    if (lastUser.includes("That model is not valid")) return "repair";
    return "draft";
  }
  return "runtime";
}

type Handler = Reply | ((req: RecordedRequest) => Reply);

/**
 * A scripted model behind the real HTTP client: one queue of answers per kind of request, routed by the
 * prompt each stage sends. Judges default to "holds". Every request is recorded with its kind.
 */
export class ScriptedModel {
  readonly calls: Array<{ kind: Kind; req: RecordedRequest }> = [];
  private readonly queues = new Map<Kind, Handler[]>();
  private readonly fallback = new Map<Kind, Handler>([
    ["judge", reply.json({ holds: true, reason: "consistent with the SOP" })],
  ]);

  constructor(private readonly server: ReplayServer) {
    server.when(
      () => true,
      (req) => {
        const kind = classify(req);
        this.calls.push({ kind, req });
        const h = this.queues.get(kind)?.shift() ?? this.fallback.get(kind);
        if (!h) return reply.status(400, { message: `no scripted answer for a ${kind} request` });
        return typeof h === "function" ? h(req) : h;
      },
      { times: Number.POSITIVE_INFINITY },
    );
  }

  push(kind: Kind, ...answers: Handler[]): this {
    const q = this.queues.get(kind) ?? [];
    q.push(...answers);
    this.queues.set(kind, q);
    return this;
  }

  always(kind: Kind, answer: Handler): this {
    this.fallback.set(kind, answer);
    return this;
  }

  of(kind: Kind): RecordedRequest[] {
    return this.calls.filter((c) => c.kind === kind).map((c) => c.req);
  }

  llm() {
    return createLlmService({
      endpoints: { ep: { provider: "openai-compatible", baseURL: this.server.openaiBaseURL, apiKey: "test-key" } },
      default: "ep",
      retry: { maxRetries: 0 },
    });
  }
}

export const MODEL = {
  provider: "weft-compile",
  name: "scripted",
  mode: "chat",
  completion_params: { temperature: 0 },
};

/** Text of the last user message of a request. */
export function lastUser(req: RecordedRequest): string {
  const messages = (req.body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  return text([...messages].reverse().find((m) => m.role === "user"));
}
