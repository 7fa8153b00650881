/**
 * What the Chat2Workflow resolve stage needs to run offline, for tests and bench/chat2workflow-resolve.ts:
 * - a replay model on the loopback replay server (test/support/replay-server.ts) that answers every LLM
 *   node: the question classifier with a category (the one sharing most words with the input), the
 *   parameter extractor with an object that fits its JSON Schema, every other node with one Markdown
 *   document that also carries a mermaid block (so exporters and the mermaid converter get usable input);
 * - a replay judge (model "replay-judge"): true when every judged output has text, false otherwise;
 * - services from the standard wiring (buildServices with a weft.config.json pointing at the server), with
 *   the tools no offline build has served by configuration: the replay tools' MCP server (TTS writes a real
 *   WAV, text-to-image a real PNG, web search canned results) with Dify's provider names mapped onto it.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadWeftConfig } from "../../src/cli/config.js";
import type { BuiltServices } from "../../src/runtime/services.js";
import { buildServices } from "../../src/runtime/services.js";
import { type RecordedRequest, type ReplayServer, reply, startReplayServer } from "./replay-server.js";
import { replayToolsStdio } from "./replay-tools.js";

export const JUDGE_MODEL = "replay-judge";

const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
      ? content.map((p) => (p && typeof p === "object" && "text" in p ? String(p.text) : "")).join("\n")
      : "";

const messages = (req: RecordedRequest): Array<{ role: string; content: unknown }> =>
  Array.isArray(req.body?.messages) ? req.body.messages : [];

/** The request's image parts (OpenAI wire format), for asserting that vision inputs reach the model. */
export function imageParts(req: RecordedRequest): string[] {
  return messages(req).flatMap((m) =>
    Array.isArray(m.content)
      ? m.content.flatMap((p: { type?: string; image_url?: { url?: string } }) =>
          p?.type === "image_url" && p.image_url?.url ? [p.image_url.url] : [],
        )
      : [],
  );
}

const words = (s: string) => new Set(s.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []);

function classify(req: RecordedRequest) {
  const user = textOf(messages(req).find((m) => m.role === "user")?.content);
  let input = "";
  let categories: Array<{ category_id: string; category_name: string }> = [];
  try {
    const j = JSON.parse(user.slice(user.indexOf("{"), user.lastIndexOf("}") + 1));
    input = String(j.input_text ?? "");
    categories = Array.isArray(j.categories) ? j.categories : [];
  } catch {
    // Not the classifier's JSON prompt: answer with no category (the node falls back to its first class).
  }
  const w = words(input);
  const score = (c: { category_name: string }) => [...words(c.category_name)].filter((x) => w.has(x)).length;
  const best = categories.reduce<(typeof categories)[number] | undefined>(
    (a, c) => (a === undefined || score(c) > score(a) ? c : a),
    undefined,
  );
  return reply.json({
    keywords: [...w].slice(0, 3),
    category_id: best?.category_id ?? "",
    category_name: best?.category_name ?? "",
  });
}

/** A value fitting a (small) JSON Schema. */
function sample(schema: Record<string, unknown> | undefined, name = "value"): unknown {
  const t = schema?.type;
  if (t === "object" || schema?.properties) {
    const props = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sample(v, k)]));
  }
  if (t === "array")
    return [
      sample(schema?.items as Record<string, unknown>, name),
      sample(schema?.items as Record<string, unknown>, name),
    ];
  if (t === "number" || t === "integer") return 3;
  if (t === "boolean") return true;
  return `replayed ${name}`;
}

function extract(req: RecordedRequest) {
  const system = textOf(messages(req).find((m) => m.role === "system")?.content);
  const tool = Array.isArray(req.body?.tools) ? req.body.tools[0] : undefined;
  if (tool?.function) return reply.toolCall(tool.function.name, sample(tool.function.parameters));
  const at = system.indexOf("The object must match this JSON Schema:");
  let schema: Record<string, unknown> | undefined;
  if (at >= 0) {
    const rest = system.slice(at).replace(/^[^{]*/, "");
    try {
      schema = JSON.parse(rest.slice(0, rest.lastIndexOf("}") + 1));
    } catch {
      schema = undefined;
    }
  }
  return reply.text(JSON.stringify(sample(schema)));
}

/** The judged outputs as name → value: a "name: value" line starts an entry, later lines continue it. */
function judgedOutputs(output: string): string[] {
  const values: string[] = [];
  for (const line of output.split("\n")) {
    // Upstream's layout indents the first line of each entry by four spaces.
    const m = /^\s*([\w-]+):\s?(.*)$/.exec(line);
    if (m) values.push(m[2]!);
    else if (values.length > 0) values[values.length - 1] += `\n${line}`;
  }
  return values;
}

function judge(req: RecordedRequest) {
  const prompt = messages(req)
    .map((m) => textOf(m.content))
    .join("\n");
  const values = judgedOutputs(/<output>([\s\S]*?)<\/output>/.exec(prompt)?.[1] ?? "");
  const empty = values.length === 0 || values.some((v) => /^(|null|\[\]|\{\})$/.test(v.trim()));
  return reply.text(
    empty
      ? "<reason>An output is empty.</reason><result>false</result>"
      : "<reason>Every output answers the request.</reason><result>true</result>",
  );
}

function answer(req: RecordedRequest) {
  const user = textOf(
    messages(req)
      .filter((m) => m.role === "user")
      .at(-1)?.content,
  )
    .replace(/\s+/g, " ")
    .slice(0, 120);
  return reply.text(
    [
      "# Replayed answer",
      "",
      `This is the replay model's answer to: ${user}`,
      "",
      "- first point",
      "- second point",
      "",
      "```mermaid",
      "graph TD",
      "  A[Start] --> B[Answer]",
      "```",
    ].join("\n"),
  );
}

/** Installs the replay model and judge on a server (rules that answer every chat request). */
export function installReplayModel(server: ReplayServer): void {
  const isChat = (r: RecordedRequest) => r.api === "openai-chat";
  server.when((r) => isChat(r) && r.model === JUDGE_MODEL, judge, { times: Number.POSITIVE_INFINITY });
  server.when((r) => isChat(r) && r.body?.response_format?.json_schema?.name === "classification", classify, {
    times: Number.POSITIVE_INFINITY,
  });
  server.when(
    (r) =>
      isChat(r) &&
      (textOf(messages(r).find((m) => m.role === "system")?.content).includes(
        "The object must match this JSON Schema",
      ) ||
        (Array.isArray(r.body?.tools) && r.body.tools.length > 0)),
    extract,
    { times: Number.POSITIVE_INFINITY },
  );
  server.when(isChat, answer, { times: Number.POSITIVE_INFINITY });
}

/**
 * The tools no offline build serves, configured as a user would: the replay tools' MCP server
 * (test/support/replay-tools.ts) under tools.mcp, and the Dify providers mapped onto it with tools.map.
 */
export function replayToolsConfig(): Record<string, unknown> {
  return {
    mcp: { replay: replayToolsStdio() },
    map: {
      "audio/tts": "replay/text_to_speech",
      tongyi_aigc: "replay/text_to_image",
      "google/google_search": "replay/web_search",
    },
  };
}

export interface Chat2WorkflowReplay {
  server: ReplayServer;
  services: BuiltServices;
  configPath: string;
  dir: string;
  close(): Promise<void>;
}

/** The replay server with the model and judge installed, a config pointing at it, and services built from it. */
export async function startChat2WorkflowReplay(
  opts: {
    tools?: boolean /** Rules tried before the replay model's (which answer every chat request). */;
    rules?: (s: ReplayServer) => void;
  } = {},
): Promise<Chat2WorkflowReplay> {
  const server = await startReplayServer();
  opts.rules?.(server);
  installReplayModel(server);
  const dir = mkdtempSync(join(tmpdir(), "weft-c2w-replay-"));
  const configPath = join(dir, "weft.config.json");
  writeFileSync(
    configPath,
    JSON.stringify({
      llm: {
        endpoints: { replay: { provider: "openai-compatible", baseURL: server.openaiBaseURL } },
        default: "replay",
        retry: { maxRetries: 0 },
      },
      files: { dir: join(dir, "files") },
      ...(opts.tools !== false ? { tools: replayToolsConfig() } : {}),
    }),
  );
  const cfg = loadWeftConfig(configPath);
  const services = await buildServices(cfg, { configPath });
  return {
    server,
    services,
    configPath,
    dir,
    close: async () => {
      await services.close();
      await server.close();
    },
  };
}
