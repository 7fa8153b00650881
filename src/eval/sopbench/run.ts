import pLimit from "p-limit";
import { CEILINGS } from "./ceilings.js";
import { type Cell, pyStr } from "./csv.js";
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

export interface DomainReport extends DomainScore {
  /** Reachable strict-correct rows for this domain (undefined where labels need judgment). */
  ceiling?: number;
}

/** Scores several domains, one solver each, and attaches each domain's ceiling (see ceilings.ts). */
export async function scoreDomains(solvers: Record<string, Solver>, opts: ScoreOptions = {}): Promise<DomainReport[]> {
  const out: DomainReport[] = [];
  for (const [domain, solve] of Object.entries(solvers)) {
    const s = await scoreDomain(domain, solve, opts);
    const reachable = CEILINGS[domain]?.reachable;
    out.push(reachable === undefined ? s : { ...s, ceiling: reachable });
  }
  return out;
}

/**
 * The task as the original runner showed it to the agent: one `key: value` line per input column, values
 * printed the way Python prints pandas cells (NaN as "nan", floats with ".0", True/False).
 */
export function formatTaskInputs(task: TaskInput, corpusDir = DEFAULT_CORPUS_DIR): string {
  const dtypes = loadDomain(task.domain, corpusDir).table.dtypes;
  return Object.entries(task.inputs)
    .map(([k, v]) => `${k}: ${pyStr(v, dtypes[k])}`)
    .join("\n");
}
