/**
 * τ-bench pass^k (arXiv 2406.12045; tau_bench run.py display_metrics):
 *   pass^k = mean over tasks of C(c, k) / C(n, k),  C(c, k) = 0 when c < k,
 * the unbiased estimate of "all k i.i.d. trials succeed". A trial succeeds iff 1 − 1e-6 ≤ reward ≤ 1 + 1e-6,
 * compared as τ-bench compares (so 0.999999 succeeds; |reward − 1| ≤ 1e-6 would not, by one rounding step).
 * n is the number of distinct trial ids across all records (as upstream), even if a task has fewer.
 * A (task, trial) pair recorded more than once would let c exceed n (upstream then scores above 1);
 * here c is capped at n and every such pair is listed in `duplicates`.
 * Binomials are exact BigInts; the ratio is converted to a double with ~64 significant bits kept
 * before rounding, so large n (e.g. 200 trials) neither overflows nor loses precision.
 */
import { MetricCodes, MetricInputError } from "./errors.js";

export function binomial(n: number, k: number): bigint {
  if (!Number.isInteger(n) || !Number.isInteger(k) || n < 0) {
    throw new MetricInputError(MetricCodes.invalidArgument, `binomial(${n}, ${k}) needs integers with n ≥ 0`, {
      field: "n",
    });
  }
  if (k < 0 || k > n) return 0n;
  const kk = Math.min(k, n - k);
  let r = 1n;
  for (let i = 1; i <= kk; i++) r = (r * BigInt(n - kk + i)) / BigInt(i);
  return r;
}

function bitLength(x: bigint): number {
  return x === 0n ? 0 : x.toString(2).length;
}

/** num/den as the nearest-ish double (error ≤ ~1 ulp), for non-negative BigInts. */
export function ratioToNumber(num: bigint, den: bigint): number {
  if (den <= 0n || num < 0n) throw new MetricInputError(MetricCodes.invalidArgument, "ratio needs num ≥ 0 and den > 0");
  if (num === 0n) return 0;
  const shift = Math.max(0, 64 - (bitLength(num) - bitLength(den)));
  const q = (num << BigInt(shift)) / den;
  return Number(q) / 2 ** shift;
}

/** C(c,k)/C(n,k) for one task. */
export function passHatKTask(c: number, n: number, k: number): number {
  if (!Number.isInteger(c) || c < 0 || c > n) {
    throw new MetricInputError(MetricCodes.invalidArgument, `successes c=${c} must be an integer in 0..n (n=${n})`, {
      field: "c",
    });
  }
  if (!Number.isInteger(k) || k < 1 || k > n) {
    throw new MetricInputError(MetricCodes.invalidArgument, `k=${k} must be an integer in 1..n (n=${n})`, {
      field: "k",
    });
  }
  return ratioToNumber(binomial(c, k), binomial(n, k));
}

/** pass@k = 1 − C(n−c, k)/C(n, k), for contrast ("at least one of k succeeds"). */
export function passAtKTask(c: number, n: number, k: number): number {
  passHatKTask(c, n, k); // validates
  return 1 - ratioToNumber(binomial(n - c, k), binomial(n, k));
}

export interface TrialRecord {
  taskId: string | number;
  trial: string | number;
  /** Success iff |reward − 1| ≤ 1e-6 (τ-bench); or give `success` directly. */
  reward?: number;
  success?: boolean;
}

export interface PassHatKReport {
  /** Distinct trial ids. */
  n: number;
  tasks: number;
  /** successes per task id */
  successes: Map<string, number>;
  /** curve[k-1] = pass^k for k = 1..n */
  curve: number[];
  /** (task, trial) pairs recorded more than once, with how many rows each has. */
  duplicates: Array<{ taskId: string; trial: string; rows: number }>;
}

export function isSuccess(r: TrialRecord): boolean {
  if (r.success !== undefined) return r.success;
  if (typeof r.reward !== "number") {
    throw new MetricInputError(
      MetricCodes.invalidArgument,
      `trial ${String(r.trial)} of task ${String(r.taskId)} has neither success nor reward`,
      {
        field: "reward",
      },
    );
  }
  return 1 - 1e-6 <= r.reward && r.reward <= 1 + 1e-6;
}

export function passHatK(records: readonly TrialRecord[]): PassHatKReport {
  const trials = new Set(records.map((r) => String(r.trial)));
  const n = trials.size;
  const successes = new Map<string, number>();
  const rows = new Map<string, { taskId: string; trial: string; rows: number }>();
  for (const r of records) {
    const id = String(r.taskId);
    successes.set(id, (successes.get(id) ?? 0) + (isSuccess(r) ? 1 : 0));
    const key = JSON.stringify([id, String(r.trial)]);
    const seen = rows.get(key);
    if (seen) seen.rows++;
    else rows.set(key, { taskId: id, trial: String(r.trial), rows: 1 });
  }
  const duplicates = [...rows.values()].filter((x) => x.rows > 1);
  const curve: number[] = [];
  for (let k = 1; k <= n; k++) {
    let s = 0;
    for (const c of successes.values()) s += passHatKTask(Math.min(c, n), n, k);
    curve.push(successes.size === 0 ? 0 : s / successes.size);
  }
  return { n, tasks: successes.size, successes, curve, duplicates };
}

export interface ExecutorRuns {
  executor: string;
  /** Outcomes of this executor's runs on the instance. */
  outcomes: readonly boolean[];
}

export interface InstanceConsistency {
  /**
   * Probability that one run drawn from executor e and one from a different executor f agree
   * (both succeed or both fail), averaged over unordered executor pairs:
   *   agree(e,f) = r_e·r_f + (1−r_e)(1−r_f), r_e = executor e's success rate on the instance.
   * 1 = every executor behaves identically and deterministically; 0.5 = coin flips.
   */
  agreement: number;
  /** Every run of every executor succeeded. */
  allSucceed: boolean;
  /** Every run of every executor failed. */
  allFail: boolean;
  /** Success rate per executor. */
  rates: Record<string, number>;
  /** max − min of the executors' success rates. */
  spread: number;
}

/**
 * Per-instance consistency across executors (our definition; METRICS.md names the quantity but does
 * not define it): see `InstanceConsistency.agreement`. Needs ≥ 2 executors with ≥ 1 run each.
 */
export function instanceConsistency(runs: readonly ExecutorRuns[]): InstanceConsistency {
  if (runs.length < 2)
    throw new MetricInputError(MetricCodes.invalidArgument, "consistency across executors needs at least 2 executors", {
      field: "runs",
    });
  const rates: Record<string, number> = {};
  const rs: number[] = [];
  for (const r of runs) {
    if (r.outcomes.length === 0) {
      throw new MetricInputError(MetricCodes.invalidArgument, `executor "${r.executor}" has no runs`, {
        field: "outcomes",
        executor: r.executor,
      });
    }
    const rate = r.outcomes.filter(Boolean).length / r.outcomes.length;
    rates[r.executor] = rate;
    rs.push(rate);
  }
  let sum = 0;
  let pairs = 0;
  for (let i = 0; i < rs.length; i++) {
    for (let j = i + 1; j < rs.length; j++) {
      sum += rs[i]! * rs[j]! + (1 - rs[i]!) * (1 - rs[j]!);
      pairs++;
    }
  }
  return {
    agreement: sum / pairs,
    allSucceed: runs.every((r) => r.outcomes.every(Boolean)),
    allFail: runs.every((r) => r.outcomes.every((x) => !x)),
    rates,
    spread: Math.max(...rs) - Math.min(...rs),
  };
}

/** Mean agreement over instances (each instance given as its executors' runs). */
export function meanConsistency(instances: ReadonlyArray<readonly ExecutorRuns[]>): number {
  if (instances.length === 0) return 0;
  return instances.reduce((s, i) => s + instanceConsistency(i).agreement, 0) / instances.length;
}
