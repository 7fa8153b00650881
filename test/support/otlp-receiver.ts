/**
 * An OTLP/HTTP trace receiver on 127.0.0.1 for tests: it accepts `POST /v1/traces` in both OTLP/HTTP encodings —
 * `application/json` and `application/x-protobuf`, the latter decoded with the official opentelemetry-proto
 * definitions (compiled by protobufjs, shipped in @opentelemetry/otlp-transformer 0.57, pinned as
 * `otlp-proto-defs`) — and keeps every span, flattened with its resource and attributes decoded.
 */
import { createServer, type Server } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";

export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  attributes: Record<string, unknown>;
  resource: Record<string, unknown>;
  status: { code?: number; message?: string };
  links: Array<{ traceId: string; spanId: string }>;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}
interface KeyValue {
  key: string;
  value: AnyValue;
}

function anyValue(v: AnyValue): unknown {
  if (v.stringValue !== undefined) return v.stringValue;
  if (v.boolValue !== undefined) return v.boolValue;
  if (v.intValue !== undefined) return Number(v.intValue);
  if (v.doubleValue !== undefined) return v.doubleValue;
  if (v.arrayValue) return (v.arrayValue.values ?? []).map(anyValue);
  return undefined;
}
export function attributesOf(kvs: KeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((kvs ?? []).map((kv) => [kv.key, anyValue(kv.value)]));
}

export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  contentTypes: string[];
  /** The authorization header of each request (Langfuse's Basic credential, …); "" when absent. */
  authorizations: string[];
  close(): Promise<void>;
}

/** Flattens one decoded ExportTraceServiceRequest (JSON encoding) into spans. */
export function spansOfJson(body: any): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = attributesOf(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          traceId: s.traceId,
          spanId: s.spanId,
          parentSpanId: s.parentSpanId ?? "",
          name: s.name,
          attributes: attributesOf(s.attributes),
          resource,
          status: s.status ?? {},
          links: (s.links ?? []).map((l: any) => ({ traceId: l.traceId, spanId: l.spanId })),
        });
      }
    }
  }
  return out;
}

export async function startOtlpReceiver(
  decode: (contentType: string, body: Buffer) => ReceivedSpan[] = decodeOtlp,
): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const contentTypes: string[] = [];
  const authorizations: string[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const type = String(req.headers["content-type"] ?? "");
      contentTypes.push(type);
      authorizations.push(String(req.headers.authorization ?? ""));
      if (req.method !== "POST" || req.url !== "/v1/traces") {
        res.writeHead(404).end();
        return;
      }
      try {
        spans.push(...decode(type, Buffer.concat(chunks)));
        res.writeHead(200, { "content-type": "application/json" }).end("{}");
      } catch (e) {
        res.writeHead(400).end(String(e));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1/traces`,
    spans,
    contentTypes,
    authorizations,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

interface ProtoMessage {
  decode(b: Uint8Array): unknown;
  toObject(m: unknown, o: { longs: StringConstructor; enums: NumberConstructor }): any;
}
const ExportTraceServiceRequest = (
  createRequire(import.meta.url)("otlp-proto-defs/build/src/generated/root.js") as {
    opentelemetry: { proto: { collector: { trace: { v1: { ExportTraceServiceRequest: ProtoMessage } } } } };
  }
).opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest;

/** protobuf `bytes` ids as the JSON encoding spells them (lower-case hex; an absent parent is ""). */
function hexIds(span: any): any {
  const hex = (b: Uint8Array | undefined) => (b ? Buffer.from(b).toString("hex") : "");
  return {
    ...span,
    traceId: hex(span.traceId),
    spanId: hex(span.spanId),
    parentSpanId: hex(span.parentSpanId),
    links: (span.links ?? []).map((l: any) => ({ ...l, traceId: hex(l.traceId), spanId: hex(l.spanId) })),
  };
}

/** Decodes an ExportTraceServiceRequest in the protobuf encoding into the JSON encoding's shape. */
export function spansOfProtobuf(body: Buffer): ReceivedSpan[] {
  const obj = ExportTraceServiceRequest.toObject(ExportTraceServiceRequest.decode(body), {
    longs: String,
    enums: Number,
  });
  for (const rs of obj.resourceSpans ?? [])
    for (const ss of rs.scopeSpans ?? []) ss.spans = (ss.spans ?? []).map(hexIds);
  return spansOfJson(obj);
}

/** The encoding follows the content type, as an OTLP/HTTP server does; anything else is refused. */
export function decodeOtlp(type: string, body: Buffer): ReceivedSpan[] {
  if (type.startsWith("application/x-protobuf")) return spansOfProtobuf(body);
  if (type.startsWith("application/json")) return spansOfJson(JSON.parse(body.toString("utf8")));
  throw new Error(`expected OTLP protobuf or JSON, got ${type}`);
}
