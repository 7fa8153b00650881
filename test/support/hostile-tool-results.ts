/**
 * Hostile MCP tool results for fuzzing the path a tool's answer takes (transport → SDK client → McpProvider
 * → the hostile-JSON reader → a tool result): deep nesting, huge strings, prototype-changing keys, invalid
 * JSON and UTF-8, wrong content types and shapes, isError results, and real-looking results mutated in one
 * to three spots. Each is an McpReply for test/support/hostile-mcp.ts.
 */
import fc from "fast-check";
import { WeftError } from "../../src/ir/errors.js";
import type { ToolResult } from "../../src/ir/services.js";
import { checkHostileValue } from "../../src/util/hostile-json.js";
import type { McpReply } from "./hostile-mcp.js";

const PROTO_KEYS = [
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "valueOf",
  "hasOwnProperty",
  "\\u005f_proto__",
];

/** JSON text of a value whose keys may be prototype names, written by hand so `__proto__` stays a key. */
const key = fc.oneof(
  { weight: 2, arbitrary: fc.constantFrom(...PROTO_KEYS) },
  { weight: 3, arbitrary: fc.string({ maxLength: 6 }).map((k) => JSON.stringify(k).slice(1, -1)) },
);
const { json } = fc.letrec<{ json: string }>((tie) => ({
  json: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc
      .oneof(fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null))
      .map((v) => JSON.stringify(v)),
    fc.string({ maxLength: 12, unit: "binary" }).map((s) => JSON.stringify(s)),
    fc.array(tie("json"), { maxLength: 4 }).map((xs) => `[${xs.join(",")}]`),
    fc
      .array(fc.tuple(key, tie("json")), { maxLength: 4 })
      .map((kvs) => `{${kvs.map(([k, v]) => `"${k}":${v}`).join(",")}}`),
  ),
}));

const deep = fc
  .record({ depth: fc.integer({ min: 50, max: 30_000 }), open: fc.constantFrom("[", '{"a":') })
  .map(({ depth, open }) => `${open.repeat(depth)}1${(open === "[" ? "]" : "}").repeat(depth)}`);
const huge = fc.constantFrom(
  `{"s":"${"a".repeat(9 * 1024 * 1024)}"}`,
  `["${"b".repeat(1024 * 1024)}"]`,
  "x".repeat(2 * 1024 * 1024),
);
const proto = fc.constantFrom(
  '{"__proto__":{"polluted":true}}',
  '{"a":{"constructor":{"prototype":{"polluted":true}}}}',
  '[{"\\u005f_proto__":{"polluted":1}}]',
);
const truncated = fc
  .tuple(json, fc.double({ min: 0.05, max: 0.95, noNaN: true }))
  .map(([j, cut]) => j.slice(0, Math.max(1, Math.floor(j.length * cut))));

/** JSON text from another program: what a tool's text content or structured content may be. */
export const hostileJsonText = fc.oneof(
  { weight: 4, arbitrary: json },
  { weight: 2, arbitrary: deep },
  { weight: 1, arbitrary: huge },
  { weight: 2, arbitrary: proto },
  { weight: 2, arbitrary: truncated },
  { weight: 1, arbitrary: fc.constantFrom("\ud800{", "[\udfff]", '{"a":"\ud83d"}', "", " ", "{", "[1,]", "NaN") },
);

/** A content item as JSON text: the MCP content types, and wrong ones. */
const contentItem = fc.oneof(
  { weight: 4, arbitrary: hostileJsonText.map((t) => `{"type":"text","text":${JSON.stringify(t)}}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(
        fc.constantFrom("image", "audio"),
        fc.constantFrom("aGVsbG8=", "!!!", "", "%%%"),
        fc.constantFrom("image/png", "audio/wav", "x/\u0000", ""),
      )
      .map(([type, data, mime]) => `{"type":"${type}","data":"${data}","mimeType":${JSON.stringify(mime)}}`),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"type":"resource","resource":{"uri":"file:///a/b.txt","text":"t"}}',
      '{"type":"resource","resource":{"uri":"x:","blob":"AA==","mimeType":"application/pdf"}}',
      '{"type":"resource","resource":{"uri":"x:"}}',
    ),
  },
  { weight: 1, arbitrary: json.map((j) => `{"type":"text","text":${j}}`) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '{"type":"bogus"}',
      '{"type":"text"}',
      "5",
      "null",
      '{"type":"image","data":5}',
      '{"type":"resource_link","uri":"x:y","name":"n"}',
    ),
  },
);

/** A CallToolResult as JSON text, well- or ill-formed. */
const resultText = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .record({
        content: fc.array(contentItem, { maxLength: 3 }),
        structured: fc.option(fc.oneof(json, deep, proto)),
        isError: fc.option(fc.boolean()),
      })
      .map(
        ({ content, structured, isError }) =>
          `{"content":[${content.join(",")}]${structured === null ? "" : `,"structuredContent":${structured}`}${isError === null ? "" : `,"isError":${isError}`}}`,
      ),
  },
  {
    weight: 1,
    arbitrary: fc.oneof(
      json,
      fc.constantFrom("5", "null", '"x"', '{"content":5}', "{}", '{"content":[],"structuredContent":[1]}'),
    ),
  },
);

const bytes = (...parts: Array<string | number[]>) =>
  Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p, "utf8") : Buffer.from(p))));

/** Whole HTTP bodies: invalid JSON, invalid UTF-8, answers that are not JSON-RPC or not for this request. */
const body = fc.oneof(
  // Cut off before the closing brace.
  resultText.map((r) => ({ body: (id: string) => `{"jsonrpc":"2.0","id":${id},"result":${r}` })),
  fc.constantFrom<Extract<McpReply, { body: unknown }>>(
    {
      body: (id) =>
        bytes(
          `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"`,
          [0xff, 0xfe, 0xc3, 0x28],
          '"}]}}',
        ),
    },
    {
      body: (id) =>
        bytes(
          `{"jsonrpc":"2.0","id":${id},"result":{"content":[{"type":"text","text":"{\\"a\\":\\"`,
          [0xed, 0xa0, 0x80],
          '\\"}"}]}}',
        ),
    },
    { body: () => "not json at all" },
    { body: () => "" },
    { body: (id) => `{"jsonrpc":"2.0","id":${id}}` },
    { body: (id) => `{"jsonrpc":"2.0","id":${id},"error":{"code":-32000,"message":"${"e".repeat(5000)}"}}` },
    { body: (id) => `{"jsonrpc":"2.0","id":${id},"error":{"code":"x","message":{"__proto__":1}}}` },
    { body: (id) => `[{"jsonrpc":"2.0","id":${id},"result":{"content":[]}}]` },
    { body: (id) => `<html>${id}</html>`, contentType: "text/html" },
    { body: (id) => `{"jsonrpc":"2.0","id":${id},"result":{"content":[]}}`, contentType: "application/octet-stream" },
  ),
);

/** Results the official SDK server sends as they are: its own serialisation, hostile contents. */
const sdkResult = fc
  .record({ texts: fc.array(hostileJsonText, { maxLength: 3 }), isError: fc.boolean() })
  .map(({ texts, isError }) => ({
    sdk: { content: texts.map((text) => ({ type: "text", text })), ...(isError ? { isError } : {}) },
  }));

/** A real-looking result with one to three spots replaced by hostile JSON. */
const mutated = fc
  .array(fc.tuple(fc.constantFrom("text", "structured", "content", "isError"), hostileJsonText), {
    minLength: 1,
    maxLength: 3,
  })
  .map((muts) => {
    const parts: Record<string, string> = {
      text: JSON.stringify('{"temp":21.5,"unit":"C"}'),
      structured: '{"temp":21.5,"unit":"C"}',
      content: "",
      isError: "false",
    };
    for (const [where, v] of muts) parts[where] = where === "text" ? JSON.stringify(v) : v;
    const content = parts.content || `[{"type":"text","text":${parts.text}}]`;
    return { raw: `{"content":${content},"structuredContent":${parts.structured},"isError":${parts.isError}}` };
  });

export const hostileMcpReply: fc.Arbitrary<McpReply> = fc.oneof(
  { weight: 3, arbitrary: resultText.map((raw) => ({ raw })) },
  { weight: 2, arbitrary: sdkResult },
  { weight: 2, arbitrary: mutated },
  { weight: 1, arbitrary: body },
);

export type ToolOutcome = { kind: "typed"; code: string } | { kind: "untyped"; reason: string };

/** Typed: a WeftError with an `area.reason` code and a short message, or a result of plain, bounded JSON. */
export function judgeToolOutcome(outcome: { result: ToolResult } | { error: unknown }): ToolOutcome {
  if ("error" in outcome) {
    const e = outcome.error;
    if (!(e instanceof WeftError))
      return {
        kind: "untyped",
        reason: `${(e as Error)?.constructor?.name ?? typeof e}: ${String((e as Error)?.message ?? e).slice(0, 160)}`,
      };
    if (!/^[a-z_]+\.[a-z_]+$/.test(e.code)) return { kind: "untyped", reason: `code ${e.code}` };
    if (/\n\s+at /.test(e.message))
      return { kind: "untyped", reason: `a stack trace in ${e.code}: ${e.message.slice(0, 160)}` };
    return { kind: "typed", code: e.code };
  }
  const r = outcome.result;
  if (typeof r.text !== "string" || !Array.isArray(r.files) || !Array.isArray(r.json))
    return { kind: "untyped", reason: "result shape" };
  for (const j of r.json) {
    const p = checkHostileValue(j);
    if (p) return { kind: "untyped", reason: `json output passed unchecked: ${p.message}` };
  }
  return { kind: "typed", code: "ok" };
}
