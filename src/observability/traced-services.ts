import { type Attributes, type Span, SpanKind, type Tracer } from "@opentelemetry/api";
import type { ExecServices, LlmRequest, LlmResponse } from "../ir/services.js";
import { failSpan, redactorIn } from "./tracing.js";

/** A call as a child span of whatever span is active (the node attempt), ended with the call's outcome. */
function traced<T>(
  tracer: Tracer,
  name: string,
  kind: SpanKind,
  attributes: Attributes,
  call: () => Promise<T>,
  onResult?: (span: Span, r: T) => void,
): Promise<T> {
  const redact = redactorIn();
  return tracer.startActiveSpan(name, { kind, attributes: redact(attributes) }, async (span) => {
    try {
      const r = await call();
      onResult?.(span, r);
      return r;
    } catch (e) {
      failSpan(span, e, redact);
      throw e;
    } finally {
      span.end();
    }
  });
}

/** The same service with one method replaced; the others still run on the original (private fields intact). */
function overriding<T extends object>(target: T, name: string, fn: unknown): T {
  return new Proxy(target, {
    get(t, k) {
      if (k === name) return fn;
      const v = Reflect.get(t, k, t);
      return typeof v === "function" ? v.bind(t) : v;
    },
  });
}

/** The GenAI semantic conventions' provider names for Weft's model providers. */
function genAiSystem(provider: string): string {
  const p = provider.toLowerCase();
  if (p.includes("anthropic")) return "anthropic";
  if (p.includes("gemini") || p.includes("google")) return "gcp.gemini";
  if (p.includes("openai")) return "openai";
  return p || "openai";
}

function modelSpan(tracer: Tracer, chat: (r: LlmRequest) => Promise<LlmResponse>, captureContent: boolean) {
  return (req: LlmRequest) => {
    const system = genAiSystem(req.model.provider);
    const attributes: Attributes = {
      "gen_ai.operation.name": "chat",
      "gen_ai.system": system,
      "gen_ai.provider.name": system,
      "gen_ai.request.model": req.model.name,
      ...(captureContent ? { "gen_ai.input.messages": JSON.stringify(req.messages) } : {}),
    };
    return traced(
      tracer,
      `chat ${req.model.name}`,
      SpanKind.CLIENT,
      attributes,
      () => chat(req),
      (span, r) => {
        span.setAttributes({
          "gen_ai.response.model": req.model.name,
          "gen_ai.usage.input_tokens": r.usage.promptTokens,
          "gen_ai.usage.output_tokens": r.usage.completionTokens,
          "gen_ai.response.finish_reasons": [r.finishReason],
        });
        if (captureContent) {
          const out = [{ role: "assistant", content: r.text, tool_calls: r.toolCalls }];
          span.setAttribute("gen_ai.output.messages", redactorIn()(JSON.stringify(out)));
        }
      },
    );
  };
}

/**
 * The services a run uses, each call a span under the node attempt that makes it: model calls (GenAI
 * conventions), tool calls, HTTP requests, retrieval and sandbox executions. Content is recorded only when
 * the operator opts in, and always through the run's redactor.
 */
export function tracedServices<S extends Partial<ExecServices>>(tracer: Tracer, s: S, captureContent: boolean): S {
  const out: S = { ...s };
  const { llm, tools, http, sandbox, knowledge } = s;
  if (llm)
    out.llm = overriding(
      llm,
      "chat",
      modelSpan(tracer, (r) => llm.chat(r), captureContent),
    );
  if (tools) {
    out.tools = overriding(tools, "invoke", (inv: Parameters<typeof tools.invoke>[0]) =>
      traced(
        tracer,
        `execute_tool ${inv.toolName}`,
        SpanKind.INTERNAL,
        {
          "gen_ai.operation.name": "execute_tool",
          "gen_ai.tool.name": inv.toolName,
          "weft.tool.provider": inv.providerId,
        },
        () => tools.invoke(inv),
      ),
    );
  }
  if (http) {
    out.http = {
      request: (req) =>
        traced(
          tracer,
          req.method.toUpperCase(),
          SpanKind.CLIENT,
          {
            "http.request.method": req.method.toUpperCase(),
            // The URL without its query: a query string may carry a key.
            "url.full": req.url.split("?")[0] ?? req.url,
          },
          () => http.request(req),
          (span, r) => span.setAttribute("http.response.status_code", r.status),
        ),
    };
  }
  if (sandbox) {
    out.sandbox = {
      run: (req) =>
        traced(tracer, `sandbox ${req.language}`, SpanKind.INTERNAL, { "weft.sandbox.language": req.language }, () =>
          sandbox.run(req),
        ),
    };
  }
  if (knowledge) {
    out.knowledge = overriding(knowledge, "retrieve", (req: Parameters<typeof knowledge.retrieve>[0]) =>
      traced(tracer, "retrieval", SpanKind.INTERNAL, { "gen_ai.operation.name": "retrieval" }, () =>
        knowledge.retrieve(req),
      ),
    );
  }
  return out;
}
