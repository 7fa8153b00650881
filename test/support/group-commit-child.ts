// Child process for the group-commit kill test: runs fan-outs of test nodes on a SQLite run store whose group
// commit stops before one group's durable sync, once that group holds written commits nobody has been told of.
// Prints `acked NODE` when a commit resolves, `holding` when it stops (then the parent kills it), and logs
// every execution to the exec log.

import { fdatasync } from "node:fs";
import { resumeRun, runWorkflow } from "../../src/engine/run.js";
import { openSqlite } from "../../src/store/sqlite/database.js";
import { GroupCommit } from "../../src/store/sqlite/group-commit.js";
import { SqliteRunStore } from "../../src/store/sqlite/runs.js";
import { groupCommitWorkflow, withLoggedNode } from "./group-commit-workflow.js";

const [mode, dbPath, logPath, runId] = process.argv.slice(2) as [string, string, string, string];
const nodeTypes = withLoggedNode(logPath);

const db = openSqlite(dbPath);
let acked = 0;
const committedNow = () =>
  (db.prepare("SELECT count(*) AS n FROM node_commits WHERE run_id = ?").get(runId) as { n: number }).n;
const sync = (fd: number) => {
  // Called after the group's transaction: its commits are in the WAL, not yet synced or acknowledged.
  if (mode === "run" && acked >= 2 && committedNow() > acked) {
    process.stdout.write("holding\n");
    return new Promise<void>(() => {});
  }
  return new Promise<void>((res, rej) => fdatasync(fd, (e) => (e ? rej(e) : res())));
};
const store = new SqliteRunStore(db, new GroupCommit(db, { sync }));
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
db.close();
