/**
 * What the Chat2Workflow resolve stage needs to run offline, for tests and bench/chat2workflow-resolve.ts:
 * - a replay model on the loopback replay server (test/support/replay-server.ts) that answers every LLM
 *   node: the question classifier with a category (the one sharing most words with the input), the
 *   parameter extractor with an object that fits its JSON Schema, every other node with one Markdown
 *   document that also carries a mermaid block (so exporters and the mermaid converter get usable input);
 * - a replay judge (model "replay-judge"): true when every judged output has text, false otherwise;
 * - services from the standard wiring (buildServices with a weft.config.json pointing at the server), with
 *   the tools no offline build has served through registerExternalTool: TTS writes a real WAV, text-to-
 *   image a real PNG, Google search canned results.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildServices } from "../../src/engine/services.js";
import type { ExecServices, FileValue } from "../../src/ir/services.js";
import type { LocalToolService } from "../../src/tools/builtin/service.js";
import { svgToPng } from "../../src/tools/render/raster.js";
import { type RecordedRequest, type ReplayServer, reply, startReplayServer } from "./replay-server.js";

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
  return reply.json({ keywords: [...w].slice(0, 3), category_id: best?.category_id ?? "", category_name: best?.category_name ?? "" });
}

/** A value fitting a (small) JSON Schema. */
function sample(schema: Record<string, unknown> | undefined, name = "value"): unknown {
  const t = schema?.type;
  if (t === "object" || schema?.properties) {
    const props = (schema?.properties ?? {}) as Record<string, Record<string, unknown>>;
    return Object.fromEntries(Object.entries(props).map(([k, v]) => [k, sample(v, k)]));
  }
  if (t === "array") return [sample(schema?.items as Record<string, unknown>, name), sample(schema?.items as Record<string, unknown>, name)];
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
    const m = /^([\w-]+):\s?(.*)$/.exec(line);
    if (m) values.push(m[2]!);
    else if (values.length > 0) values[values.length - 1] += `\n${line}`;
  }
  return values;
}

function judge(req: RecordedRequest) {
  const prompt = messages(req).map((m) => textOf(m.content)).join("\n");
  const values = judgedOutputs(/<output>([\s\S]*?)<\/output>/.exec(prompt)?.[1] ?? "");
  const empty = values.length === 0 || values.some((v) => /^(|null|\[\]|\{\})$/.test(v.trim()));
  return reply.text(
    empty
      ? "<reason>An output is empty.</reason><result>false</result>"
      : "<reason>Every output answers the request.</reason><result>true</result>",
  );
}

function answer(req: RecordedRequest) {
  const user = textOf(messages(req).filter((m) => m.role === "user").at(-1)?.content).replace(/\s+/g, " ").slice(0, 120);
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
      (textOf(messages(r).find((m) => m.role === "system")?.content).includes("The object must match this JSON Schema") ||
        (Array.isArray(r.body?.tools) && r.body.tools.length > 0)),
    extract,
    { times: Number.POSITIVE_INFINITY },
  );
  server.when(isChat, answer, { times: Number.POSITIVE_INFINITY });
}

/** A short valid WAV: 16-bit mono PCM, a 440 Hz tone. */
export function wavBytes(seconds = 0.2, rate = 8000): Uint8Array {
  const n = Math.round(seconds * rate);
  const buf = Buffer.alloc(44 + 2 * n);
  buf.write("RIFF", 0);
  buf.writeUInt32LE(36 + 2 * n, 4);
  buf.write("WAVEfmt ", 8);
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20);
  buf.writeUInt16LE(1, 22);
  buf.writeUInt32LE(rate, 24);
  buf.writeUInt32LE(2 * rate, 28);
  buf.writeUInt16LE(2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write("data", 36);
  buf.writeUInt32LE(2 * n, 40);
  for (let i = 0; i < n; i++) buf.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), 44 + 2 * i);
  return new Uint8Array(buf);
}

const xmlEscape = (s: string) => s.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`);

/** Serves TTS, text-to-image and Google search through the tool service's plug-in hook. */
export function registerReplayTools(tools: LocalToolService): void {
  tools.registerExternalTool("audio", "tts", async (call) => {
    const text = String(call.args.text ?? "");
    if (!text.trim()) throw new Error("tts: text is empty");
    return { files: [await call.files.put(wavBytes(), { filename: "speech.wav", mimeType: "audio/wav" })] };
  });
  tools.registerExternalTool("tongyi_aigc", "*", async (call) => {
    const prompt = String(call.args.prompt ?? "").slice(0, 60);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="#dde"/><text x="8" y="128" font-size="12">${xmlEscape(prompt)}</text></svg>`;
    const file: FileValue = await call.files.put(svgToPng(svg), { filename: "image.png", mimeType: "image/png" });
    return { files: [file] };
  });
  tools.registerExternalTool("google", "google_search", async (call) => {
    const q = String(call.args.query ?? "");
    const organic = [1, 2, 3].map((i) => ({
      position: i,
      title: `Result ${i} for ${q}`,
      link: `https://example.org/${i}`,
      snippet: `Replayed search snippet ${i} about ${q}.`,
    }));
    return { json: [{ organic_results: organic, search_results: organic }], text: JSON.stringify(organic) };
  });
}

export interface Chat2WorkflowReplay {
  server: ReplayServer;
  services: ExecServices;
  configPath: string;
  dir: string;
  close(): Promise<void>;
}

/** The replay server with the model and judge installed, a config pointing at it, and services built from it. */
export async function startChat2WorkflowReplay(opts: { tools?: boolean } = {}): Promise<Chat2WorkflowReplay> {
  const server = await startReplayServer();
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
    }),
  );
  const services = await buildServices(
    { http: { allowPrivate: false, allowHosts: [] }, files: { dir: join(dir, "files") } },
    { configPath },
  );
  if (opts.tools !== false) registerReplayTools(services.tools as LocalToolService);
  return { server, services, configPath, dir, close: () => server.close() };
}
