/**
 * zod compiles a fast path (`new Function`) for each object schema on its first parse. A command that parses each
 * schema about once (`weft run`: its workflow, the node configs, the config files) pays that compile and never
 * gets it back: ~12 ms CPU of a word-stats run's reading, analysis and input checks (152 → 138 ms, in one process
 * each), 11–16 ms of a `weft validate`. Long-lived commands (serve, worker) keep the JIT: they parse the same schemas again and again.
 */
export async function parseEachSchemaOnce(): Promise<void> {
  const { z } = await import("zod");
  // zod reads the setting when a schema is built: this runs before the command's modules build theirs.
  z.config({ jitless: true });
}
