import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { corpusPath } from "../support/corpus.js";

export const CORPUS_DIR = corpusPath("dify-dsl");

/** Every Dify DSL file in the corpus folder (walked, not only the manifest), relative paths, sorted. */
export function corpusFiles(): string[] {
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else if (/\.(ya?ml|dsl)$/i.test(e.name)) out.push(relative(CORPUS_DIR, p));
    }
  };
  walk(CORPUS_DIR);
  return out.sort();
}

export interface ManifestRow {
  local_path: string;
  dsl_version: string;
  app_mode: string;
  node_count: number;
  node_types: string[];
}

export function manifest(): ManifestRow[] {
  const [head, ...rows] = readFileSync(join(CORPUS_DIR, "MANIFEST.tsv"), "utf8").trim().split("\n");
  const cols = (head ?? "").split("\t");
  return rows.map((line) => {
    const cells = line.split("\t");
    const get = (name: string): string => cells[cols.indexOf(name)] ?? "";
    return {
      local_path: get("local_path"),
      dsl_version: get("dsl_version"),
      app_mode: get("app_mode"),
      node_count: Number(get("node_count")),
      node_types: get("node_types").split(",").filter(Boolean),
    };
  });
}

export function readCorpus(rel: string): string {
  return readFileSync(join(CORPUS_DIR, rel), "utf8");
}
