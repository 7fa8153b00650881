import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import type { Command } from "@commander-js/extra-typings";
import { KnowledgeBases } from "../../knowledge/service.js";
import { createLlmService, hasAnyEndpoint, loadLlmConfig } from "../../llm/index.js";
import type { Chunking } from "../../store/chunking.js";
import { openStores } from "../../store/open.js";
import { TextDocumentService } from "../../tools/documents.js";
import { extensionOf, mimeForExtension } from "../../tools/mime.js";
import { loadWeftConfig } from "../config.js";
import { CliError, EXIT, printJson } from "../output.js";

const DB = "database: a SQLite file (default from config: weft.db) or sqlite:PATH";

function int(raw: string | undefined, flag: string, min: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min)
    throw new CliError("usage.number", `${flag} must be an integer ≥ ${min}, got "${raw}"`);
  return n;
}

function oneOf<T extends string>(raw: string | undefined, flag: string, allowed: readonly T[]): T | undefined {
  if (raw === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(raw))
    throw new CliError("usage.choice", `${flag} must be one of ${allowed.join(", ")}, got "${raw}"`);
  return raw as T;
}

interface ChunkingFlags {
  separator?: string;
  maxLength?: string;
  overlap?: string;
  structure?: string;
  parentMode?: string;
  subchunkSeparator?: string;
  subchunkMaxLength?: string;
  subchunkOverlap?: string;
}

function chunkingFlags(o: ChunkingFlags): Partial<Chunking> {
  const c: Partial<Chunking> = {};
  if (o.separator !== undefined) c.separator = o.separator;
  const max = int(o.maxLength, "--max-length", 50);
  if (max !== undefined) c.maxLength = max;
  const overlap = int(o.overlap, "--overlap", 0);
  if (overlap !== undefined) c.overlap = overlap;
  const structure = oneOf(o.structure, "--structure", ["general", "parent_child"] as const);
  if (structure) c.structure = structure;
  const parentMode = oneOf(o.parentMode, "--parent-mode", ["paragraph", "full-doc"] as const);
  if (parentMode) c.parentMode = parentMode;
  if (o.subchunkSeparator !== undefined) c.subchunkSeparator = o.subchunkSeparator;
  const subMax = int(o.subchunkMaxLength, "--subchunk-max-length", 10);
  if (subMax !== undefined) c.subchunkMaxLength = subMax;
  const subOverlap = int(o.subchunkOverlap, "--subchunk-overlap", 0);
  if (subOverlap !== undefined) c.subchunkOverlap = subOverlap;
  return c;
}

/** The knowledge bases of the config's database, with the extractor and (if configured) the embedding model. */
async function withKb<T>(opts: { db?: string; config?: string }, f: (kb: KnowledgeBases) => Promise<T>): Promise<T> {
  const cfg = loadWeftConfig(opts.config);
  const llmConfig = loadLlmConfig({ path: opts.config });
  const stores = await openStores(opts.db ?? cfg.db);
  try {
    const kb = new KnowledgeBases(stores.knowledge, {
      documents: new TextDocumentService({ limits: cfg.documents }),
      llm: hasAnyEndpoint(llmConfig) ? createLlmService(llmConfig) : undefined,
      config: cfg.knowledge,
    });
    return await f(kb);
  } finally {
    await stores.close();
  }
}

export function registerKbCommands(program: Command): void {
  const kb = program
    .command("kb")
    .description("knowledge bases in the run store's database (what knowledge-retrieval nodes search)");
  kb.command("create")
    .description("create a knowledge base; --id gives it the id a Dify app's dataset_ids names")
    .argument("<name>")
    .option("--id <id>", "its id (default: a new ULID)")
    .option("--description <text>", "what it holds")
    .option("--separator <s>", "chunk separator (Dify's segment identifier; \\n for a newline)")
    .option("--max-length <n>", "maximum chunk length in characters")
    .option("--overlap <n>", "characters shared by neighbouring chunks")
    .option(
      "--structure <s>",
      "general (chunks are searched and returned) or parent_child (children searched, their parent returned)",
    )
    .option(
      "--parent-mode <m>",
      "parent_child: parents are paragraph chunks (--separator, --max-length) or the full-doc",
    )
    .option("--subchunk-separator <s>", "parent_child: separator of the child chunks (default \\n)")
    .option("--subchunk-max-length <n>", "parent_child: maximum child chunk length (default 512)")
    .option("--subchunk-overlap <n>", "parent_child: characters shared by neighbouring children (default 0)")
    .option("--db <spec>", DB)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (name, opts) => {
      const b = await withKb(opts, (k) =>
        k.create({ name, id: opts.id, description: opts.description, chunking: chunkingFlags(opts) }),
      ).catch((e) => {
        if (e?.code === "kb.exists") throw new CliError("kb.exists", e.message, EXIT.invalid);
        throw e;
      });
      if (opts.json) return printJson(b);
      process.stdout.write(`${b.id}\t${b.name}\n`);
    });
  kb.command("add")
    .description(
      "add documents (every format the document extractor reads: txt, md, pdf, docx, html, csv, xlsx, pptx, eml, json …)",
    )
    .argument("<id>")
    .argument("<files...>")
    .option("--separator <s>", "override the base's chunk separator for these files")
    .option("--max-length <n>", "override the maximum chunk length")
    .option("--overlap <n>", "override the chunk overlap")
    .option(
      "--structure <s>",
      "general (chunks are searched and returned) or parent_child (children searched, their parent returned)",
    )
    .option(
      "--parent-mode <m>",
      "parent_child: parents are paragraph chunks (--separator, --max-length) or the full-doc",
    )
    .option("--subchunk-separator <s>", "parent_child: separator of the child chunks (default \\n)")
    .option("--subchunk-max-length <n>", "parent_child: maximum child chunk length (default 512)")
    .option("--subchunk-overlap <n>", "parent_child: characters shared by neighbouring children (default 0)")
    .option("--metadata <json>", "document metadata (a JSON object), for metadata filters")
    .option("--db <spec>", DB)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (id, files, opts) => {
      let metadata: Record<string, unknown> | undefined;
      if (opts.metadata) {
        try {
          metadata = JSON.parse(opts.metadata);
        } catch {
          throw new CliError("usage.metadata", "--metadata must be a JSON object");
        }
        if (!metadata || typeof metadata !== "object" || Array.isArray(metadata))
          throw new CliError("usage.metadata", "--metadata must be a JSON object");
      }
      for (const f of files) if (!existsSync(f)) throw new CliError("file.not_found", `no such file: ${f}`);
      const docs = await withKb(opts, async (k) => {
        if (!(await k.store.getBase(id)))
          throw new CliError(
            "kb.not_found",
            `no knowledge base with id ${id}; create it with weft kb create NAME --id ${id}`,
            EXIT.invalid,
          );
        const out = [];
        for (const f of files) {
          const extension = extensionOf(f);
          out.push(
            await k.addFile(
              id,
              {
                name: basename(f),
                bytes: new Uint8Array(readFileSync(f)),
                extension,
                mimeType: mimeForExtension(extension) ?? "application/octet-stream",
              },
              { chunking: chunkingFlags(opts), metadata },
            ),
          );
        }
        return out;
      });
      if (opts.json) return printJson(docs);
      for (const d of docs) process.stdout.write(`${d.id}\t${d.name}\t${d.chunks} chunks\n`);
    });
  kb.command("list")
    .description("the knowledge bases, or with an id the documents of one")
    .argument("[id]")
    .option("--db <spec>", DB)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (id, opts) => {
      await withKb(opts, async (k) => {
        if (id) {
          if (!(await k.store.getBase(id)))
            throw new CliError("kb.not_found", `no knowledge base with id ${id}`, EXIT.invalid);
          const docs = await k.store.listDocuments(id);
          if (opts.json) return printJson(docs);
          for (const d of docs) process.stdout.write(`${d.id}\t${d.name}\t${d.chunks} chunks\t${d.size} bytes\n`);
          if (docs.length === 0) process.stdout.write("no documents\n");
          return;
        }
        const bases = await k.store.listBases();
        if (opts.json) return printJson(bases);
        for (const b of bases)
          process.stdout.write(
            `${b.id}\t${b.name}\t${b.documents} documents\t${b.chunks} chunks${b.embeddingModel ? `\tembedded: ${b.embeddingModel}` : ""}\n`,
          );
        if (bases.length === 0) process.stdout.write("no knowledge bases: create one with weft kb create NAME\n");
      });
    });
  kb.command("search")
    .description("retrieve as a knowledge-retrieval node would (BM25; hybrid when embedded)")
    .argument("<id>")
    .argument("<query>")
    .option("--top-k <n>", "how many passages", "4")
    .option("--score-threshold <x>", "drop passages scoring below this (0–1)")
    .option("--db <spec>", DB)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print Dify's result shape as JSON")
    .action(async (id, query, opts) => {
      const topK = int(opts.topK, "--top-k", 1)!;
      const threshold = opts.scoreThreshold === undefined ? undefined : Number(opts.scoreThreshold);
      if (threshold !== undefined && !(threshold >= 0 && threshold <= 1))
        throw new CliError("usage.number", "--score-threshold must be between 0 and 1");
      const result = await withKb(opts, (k) =>
        k.retrieve({ query, datasetIds: [id], topK, scoreThreshold: threshold }),
      ).catch((e) => {
        if (e?.code === "knowledge.dataset_not_found") throw new CliError("kb.not_found", e.message, EXIT.invalid);
        throw e;
      });
      if (opts.json) return printJson({ query, result });
      for (const [i, r] of result.entries()) {
        const score = Number(r.metadata.score).toFixed(3);
        process.stdout.write(
          `${i + 1}. [${score}] ${r.title} #${r.metadata.segment_position}\n   ${r.content.replace(/\s+/g, " ").slice(0, 240)}\n`,
        );
      }
      if (result.length === 0) process.stdout.write("no passage matches\n");
    });
}
