// Reads `strace -f -ttt -y -e trace=fsync,fdatasync` output: how many durable syncs a server made, which
// files they were on and which thread made them (the main thread blocks the event loop; the rest are the
// thread pool's), in all and within a time window (the load, without start-up and shutdown).

export interface SyncCounts {
  total: number;
  /** Calls inside the window. */
  inWindow: number;
  /** Inside the window, by "syscall thread file" (thread: main or pool; file: the path's last part, a PostgreSQL server's pid otherwise). */
  byKind: Map<string, number>;
}

// `PID SECONDS.MICROS fdatasync(FD</path/to/file>) = 0`, or the start of a call another thread interrupted.
const CALL = /^(\d+)\s+(\d+\.\d+)\s+(fsync|fdatasync)\((\d+)(?:<([^>]*)>)?/;

/** Counts of `trace`'s sync calls; `window` is [start, end] in epoch milliseconds. */
export function countSyncs(trace: string, window: [number, number]): SyncCounts {
  const calls = trace
    .split("\n")
    .map((l) => CALL.exec(l))
    .filter((m): m is RegExpExecArray => m !== null);
  // The traced process's own pid is its main thread: the lowest one that appears (threads come after it).
  const main = Math.min(...calls.map((m) => Number(m[1])));
  const byKind = new Map<string, number>();
  let inWindow = 0;
  for (const m of calls) {
    const at = Number(m[2]) * 1000;
    if (at < window[0] || at > window[1]) continue;
    inWindow++;
    const file = (m[5] ?? `fd ${m[4]}`)
      .split("/")
      .at(-1)!
      .replace(/^weft-v1-load-\w+$/, "dir");
    const kind = `${m[3]} ${Number(m[1]) === main ? "main" : "pool"} ${file}`;
    byKind.set(kind, (byKind.get(kind) ?? 0) + 1);
  }
  return { total: calls.length, inWindow, byKind };
}
