// Stopping a server on PostgreSQL while runs are starting and running: every run a client was told exists
// (202 with its id) is recorded when the server has stopped, and nothing writes to the closed pool.
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { openStores } from "../../src/store/open.js";
import { buildWorkflow, tpl } from "../support/build.js";
import { hasPostgres, type PgCluster, startPostgres } from "../support/postgres.js";
import { startTestServer } from "./helpers.js";

const chain = buildWorkflow({
  nodes: [
    { id: "start", type: "start", variables: [{ variable: "x", type: "text-input" }] },
    tpl("a", "{{ x }}a", { x: ["start", "x"] }),
    tpl("b", "{{ x }}b", { x: ["a", "output"] }),
    tpl("c", "{{ x }}c", { x: ["b", "output"] }),
    { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["c", "output"] }] },
  ],
  edges: [
    ["start", "a"],
    ["a", "b"],
    ["b", "c"],
    ["c", "end"],
  ],
});

describe.skipIf(!hasPostgres && !process.env.CI)("stopping a server on PostgreSQL with runs in flight", () => {
  let cluster: PgCluster;
  beforeAll(async () => {
    cluster = await startPostgres();
  }, 120_000);
  afterAll(async () => {
    await cluster?.stop();
  }, 60_000);

  it("records every accepted run and never uses the closed pool", async () => {
    const db = await cluster.createDatabase();
    const server = await startTestServer({ db });
    const logged: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    const spy = vi.spyOn(process.stderr, "write").mockImplementation((chunk: unknown, ...rest: unknown[]) => {
      logged.push(String(chunk));
      return (write as (...a: unknown[]) => boolean)(chunk, ...rest);
    });
    try {
      const created = await server.api("/api/apps", { method: "POST", json: { name: "chain", workflow: chain } });
      expect(created.status).toBe(201);
      const appId = ((await created.json()) as { app: { id: string } }).app.id;
      const accepted: string[] = [];
      const answered: Array<Promise<void>> = [];
      let firstAccepted!: () => void;
      const oneAccepted = new Promise<void>((r) => (firstAccepted = r));
      for (let i = 0; i < 40; i++)
        answered.push(
          server
            .api(`/api/apps/${appId}/runs`, { method: "POST", json: { inputs: { x: String(i) } } })
            .then(async (res) => {
              if (res.status !== 202) return;
              accepted.push(((await res.json()) as { runId: string }).runId);
              firstAccepted();
            })
            // Requests cut off by the shutdown were never accepted.
            .catch(() => {}),
        );
      await oneAccepted;
      await server.close();
      await Promise.all(answered);
      expect(accepted.length).toBeGreaterThan(0);
      expect(logged.join("")).not.toMatch(/after calling end on the pool|could not be recorded|was not started/);

      const stores = await openStores(db);
      try {
        const runs = await stores.runs.listRuns({ limit: 1000 });
        const byId = new Map(runs.map((r) => [r.id, r]));
        for (const id of accepted) {
          const run = byId.get(id);
          expect(run, `run ${id}`).toBeDefined();
          // Finished, or stopped between nodes to resume from its commits: never left running under a dead lease.
          expect(["succeeded", "interrupted"]).toContain(run!.status);
        }
        // No run is left half-started (a record without an end) either.
        for (const run of runs) expect(["succeeded", "interrupted"]).toContain(run.status);
      } finally {
        await stores.close();
      }
    } finally {
      spy.mockRestore();
    }
  }, 120_000);
});
