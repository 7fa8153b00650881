import pLimit from "p-limit";
import type { Cell } from "./csv.js";
import { DEFAULT_CORPUS_DIR, loadDomain } from "./dataset.js";
import { aggregate, type DomainScore, scoreRow } from "./scoring.js";

/** What a solver sees of a task: its inputs only, never the labels. */
export interface TaskInput {
  domain: string;
  taskId: string;
  index: number;
  inputs: Record<string, Cell>;
}

export type Solver = (task: TaskInput) => Promise<Record<string, unknown>>;

export interface ScoreOptions {
  corpusDir?: string;
  /** Score only the first n tasks. */
  limit?: number;
  concurrency?: number;
}

/** Runs `solve` on every labelled task of the domain and scores it (strict and lenient, see scoring.ts). */
export async function scoreDomain(domain: string, solve: Solver, opts: ScoreOptions = {}): Promise<DomainScore> {
  const d = loadDomain(domain, opts.corpusDir ?? DEFAULT_CORPUS_DIR);
  const tasks = d.tasks.slice(0, opts.limit ?? d.tasks.length);
  const limit = pLimit(opts.concurrency ?? 4);
  const rows = await Promise.all(
    tasks.map((t) =>
      limit(async () => {
        const input: TaskInput = { domain: t.domain, taskId: t.taskId, index: t.index, inputs: { ...t.inputs } };
        try {
          return scoreRow(t.taskId, t.expected, await solve(input));
        } catch (e) {
          return scoreRow(t.taskId, t.expected, undefined, (e as Error).message ?? String(e));
        }
      }),
    ),
  );
  return aggregate(domain, rows);
}
