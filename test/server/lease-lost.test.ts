// The RunHub's side of run leases, in one process on an in-memory store: a live owner renews in time and is
// never robbed; an owner that stalled past its lease (renewals stopped) and lost the run to a peer stops its
// copy without writing the run's record or committing the node it cut short.
import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RunHub } from "../../src/server/hub.js";
import { openStores, type Stores } from "../../src/store/open.js";
import { createHttpService } from "../../src/tools/http.js";
import { buildWorkflow } from "../support/build.js";

// Renewed ten times per lease: a loaded machine would have to stall this process for 1.8 s to lose one.
const LEASE = { ttlMs: 2000, renewMs: 200 };

/** Holds every request until `release()`; `arrived()` resolves once one is held. */
let server: Server;
let url = "";
const held: ServerResponse[] = [];
let onArrive: (() => void) | undefined;
beforeAll(async () => {
  server = createServer((_req, res) => {
    held.push(res);
    onArrive?.();
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const r of held) r.destroy();
  await new Promise((r) => server.close(r));
});
const arrived = () => new Promise<void>((r) => (onArrive = r));
const release = () => {
  for (const r of held.splice(0)) r.end("answered");
};

function workflow() {
  return buildWorkflow({
    nodes: [
      { id: "start", type: "start", variables: [] },
      {
        id: "call",
        type: "http-request",
        title: "call",
        method: "get",
        url: `${url}/wait`,
        headers: "",
        params: "",
        body: { type: "none", data: [] },
        authorization: { type: "no-auth" },
        timeout: { max_connect_timeout: 10, max_read_timeout: 60, max_write_timeout: 10 },
      },
      { id: "end", type: "end", outputs: [{ variable: "out", value_selector: ["call", "body"] }] },
    ],
    edges: [
      ["start", "call"],
      ["call", "end"],
    ],
  });
}

async function hubOn(stores: Stores): Promise<RunHub> {
  return new RunHub({
    runs: stores.runs,
    apps: stores.apps,
    forms: stores.forms,
    services: { http: createHttpService({ allowPrivate: true }) },
    flushMs: 20,
    lease: LEASE,
  });
}

/** Poll (every 20 ms, at most 10 s) until `f` gives a value: waits for a state, not for a time. */
async function until<T>(what: string, f: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("run leases in the RunHub", () => {
  it("a live owner renews before expiry: a peer sweeping all along never claims its run", async () => {
    const stores = await openStores(":memory:");
    const hub = await hubOn(stores);
    hub.startLeases();
    try {
      const { app } = await stores.apps.createApp({ name: "held", mode: "workflow" }, workflow(), "create");
      const waiting = arrived();
      const { runId, done } = await hub.start(workflow(), { appId: app.id, inputs: {} });
      await waiting;
      const first = (await stores.runs.getRun(runId))!.lease!;
      expect(first.owner).toBe(hub.owner);
      // Until the lease has been renewed past two of its lifetimes, a peer sweeps on every look and gets nothing.
      let sweeps = 0;
      await until("the lease renewed twice over", async () => {
        sweeps++;
        expect(await stores.runs.claimExpiredRuns({ owner: "peer", ttlMs: 60_000 }, 10)).toEqual([]);
        const lease = (await stores.runs.getRun(runId))!.lease!;
        expect(lease.owner).toBe(hub.owner);
        return lease.expiresAt > first.expiresAt + 2 * LEASE.ttlMs ? true : undefined;
      });
      expect(sweeps).toBeGreaterThan(1);
      release();
      expect(await done).toMatchObject({ status: "succeeded", outputs: { out: "answered" } });
      expect((await stores.runs.getRun(runId))!.lease).toBeUndefined();
    } finally {
      hub.stopLeases();
      await stores.close();
    }
  });

  it("an owner that stalled past its lease and lost the run stops its copy: no record write, no commit of the cut node", async () => {
    const stores = await openStores(":memory:");
    const hub = await hubOn(stores);
    try {
      const { app } = await stores.apps.createApp({ name: "held", mode: "workflow" }, workflow(), "create");
      const waiting = arrived();
      // Leases not started: this server renews nothing, as if its event loop or database stalled.
      const { runId, done } = await hub.start(workflow(), { appId: app.id, inputs: {} });
      await waiting;
      const claimed = await until("the lease to expire and a peer to claim the run", async () => {
        const ids = await stores.runs.claimExpiredRuns({ owner: "peer", ttlMs: 60_000 }, 10);
        return ids.length > 0 ? ids : undefined;
      });
      expect(claimed).toEqual([runId]);
      const outcome = done.then(
        () => undefined,
        (e: unknown) => e,
      );
      // Its renewals resume, find the run held by the peer, and stop this copy.
      hub.startLeases();
      expect(await outcome).toMatchObject({ code: "run.lease_lost" });
      const run = (await stores.runs.getRun(runId))!;
      expect(run).toMatchObject({ status: "running", lease: { owner: "peer" } });
      expect([...(await stores.runs.committed(runId)).keys()]).toEqual(["start"]);
      expect(hub.isActive(runId)).toBe(false);
    } finally {
      hub.stopLeases();
      release();
      await stores.close();
    }
  });
});
