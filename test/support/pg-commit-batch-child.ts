// Child process for the PostgreSQL batched-commit kill test: runs the fan-out workflow on a run store whose
// batched statement, once it has committed commits nobody has been told of, never returns. Prints `acked NODE`
// when a commit resolves, `holding` when a committed batch is held (then the parent kills it), and logs every
// execution to the exec log.

import { resumeRun, runWorkflow } from "../../src/engine/run.js";
import { createPool, type PgDatabase, pgDatabase } from "../../src/store/postgres/database.js";
import { migrate } from "../../src/store/postgres/migrations.js";
import { PostgresRunStore } from "../../src/store/postgres/runs.js";
import { parsePostgresSpec } from "../../src/store/postgres/spec.js";
import { groupCommitWorkflow, withLoggedNode } from "./group-commit-workflow.js";

const [mode, url, logPath, runId] = process.argv.slice(2) as [string, string, string, string];
const nodeTypes = withLoggedNode(logPath);

const spec = parsePostgresSpec(url);
const real = pgDatabase(spec, createPool(spec));
await migrate(real);
let acked = 0;
const db: PgDatabase = {
  ...real,
  query: async (sql, params, name) => {
    const rows = await real.query(sql, params, name);
    // The batch is committed on the server; its commits are not yet acknowledged to the engine.
    if (mode === "run" && name === "weft_commit_batch" && acked >= 1 && rows.length > 0) {
      process.stdout.write("holding\n");
      await new Promise<void>(() => {});
    }
    return rows as never;
  },
};
// One statement in flight: the fan-out's first commit goes alone, the next ones queue and share a batch.
const store = new PostgresRunStore(db, 1);
const commitNode = store.commitNode.bind(store);
store.commitNode = async (id, c, attempt) => {
  const r = await commitNode(id, c, attempt);
  acked++;
  process.stdout.write(`acked ${c.nodeId}\n`);
  return r;
};
const wf = groupCommitWorkflow();
const result =
  mode === "run" ? await runWorkflow(wf, { store, runId, nodeTypes }) : await resumeRun(runId, { store, nodeTypes });
process.stdout.write(`result ${JSON.stringify({ status: result.status, outputs: result.outputs })}\n`);
await real.close();
