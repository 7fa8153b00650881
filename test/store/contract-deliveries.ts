// Webhook deliveries and their states, part of the store contract: every backend (memory, SQLite, PostgreSQL)
// runs it from contract.test.ts through describeStoreContract.
import { expect, it } from "vitest";
import { type StoreTarget, withStores } from "./store-target.js";

export function describeDeliveries(target: StoreTarget): void {
  it("deliveries: stored accepted with their payload until settled; recovery lists the old accepted ones, oldest first", () =>
    withStores(target, async ({ triggers }) => {
      const [t] = await triggers.sync("app-d", [{ nodeId: "hook", type: "webhook" }], () => "trig-d");
      const payload = { webhook_body: { n: 1, text: "ünï \u{1F600}" }, webhook_headers: { "x-a": "b" } };
      const a = await triggers.recordDelivery({
        id: "d1",
        triggerId: t!.id,
        runId: "run-1",
        status: 200,
        receivedAt: 1_000,
        state: "accepted",
        payload,
      });
      expect(a).toEqual({ fresh: true, delivery: expect.objectContaining({ state: "accepted", payload }) });
      await triggers.recordDelivery({
        id: "d2",
        triggerId: t!.id,
        runId: "run-2",
        status: 200,
        receivedAt: 2_000,
        state: "accepted",
        payload: {},
      });
      await triggers.recordDelivery({ id: "d3", triggerId: t!.id, runId: "run-3", status: 200, receivedAt: 500 });
      // A delivery stored without a state (as before states existed) is started.
      expect((await triggers.deliveries(t!.id, 10)).find((d) => d.id === "d3")!.state).toBe("started");
      expect((await triggers.acceptedDeliveries(1_500)).map((d) => d.id)).toEqual(["d1"]);
      const both = await triggers.acceptedDeliveries(5_000);
      expect(both.map((d) => [d.id, d.payload])).toEqual([
        ["d1", payload],
        ["d2", {}],
      ]);
      await triggers.settleDelivery("d1", { state: "started" });
      await triggers.settleDelivery("d2", { state: "failed", error: "trigger.app_unpublished: gone" });
      expect(await triggers.acceptedDeliveries(5_000)).toEqual([]);
      const byId = new Map((await triggers.deliveries(t!.id, 10)).map((d) => [d.id, d]));
      expect(byId.get("d1")).toEqual({
        id: "d1",
        triggerId: t!.id,
        runId: "run-1",
        status: 200,
        receivedAt: 1_000,
        state: "started",
      });
      expect(byId.get("d2")).toMatchObject({ state: "failed", error: "trigger.app_unpublished: gone" });
      expect(byId.get("d2")!.payload).toBeUndefined();
      // A repeat with a stored idempotency key returns the first delivery, state and all.
      await triggers.recordDelivery({
        id: "k1",
        triggerId: t!.id,
        idempotencyKey: "K",
        runId: "run-k",
        status: 200,
        receivedAt: 3_000,
        state: "accepted",
        payload: { a: 1 },
      });
      const again = await triggers.recordDelivery({
        id: "k2",
        triggerId: t!.id,
        idempotencyKey: "K",
        runId: "run-k2",
        status: 200,
        receivedAt: 3_001,
        state: "accepted",
        payload: { a: 2 },
      });
      expect(again.fresh).toBe(false);
      expect(again.delivery).toMatchObject({ id: "k1", runId: "run-k", state: "accepted", payload: { a: 1 } });
    }));
  it("deliveries: of concurrent claims of an accepted delivery one wins; a stale claim is taken over; settled ones never", () =>
    withStores(target, async ({ triggers }) => {
      const [t] = await triggers.sync("app-c", [{ nodeId: "hook", type: "webhook" }], () => "trig-c");
      const base = { triggerId: t!.id, status: 200, receivedAt: 1_000, state: "accepted" as const, payload: {} };
      await triggers.recordDelivery({ ...base, id: "c1", runId: "run-c1" });
      // The route claims at receipt: nobody takes it while that claim is fresh.
      await triggers.recordDelivery({ ...base, id: "c2", runId: "run-c2", claimedAt: 5_000 });
      const claims = await Promise.all(Array.from({ length: 8 }, () => triggers.claimDelivery("c1", 10_000, 9_000)));
      expect(claims.filter(Boolean)).toHaveLength(1);
      expect(await triggers.claimDelivery("c1", 10_500, 9_000)).toBe(false);
      expect(await triggers.claimDelivery("c2", 10_000, 4_000)).toBe(false);
      // The claimer died: once its claim is older than staleBefore, one other takes it.
      expect(await triggers.claimDelivery("c1", 20_000, 15_000)).toBe(true);
      expect(await triggers.claimDelivery("c2", 20_000, 15_000)).toBe(true);
      expect((await triggers.acceptedDeliveries(5_000)).map((d) => [d.id, d.claimedAt])).toEqual([
        ["c1", 20_000],
        ["c2", 20_000],
      ]);
      await triggers.settleDelivery("c1", { state: "started" });
      expect(await triggers.claimDelivery("c1", 90_000, 80_000)).toBe(false);
      expect(await triggers.claimDelivery("nope", 90_000, 80_000)).toBe(false);
    }));
}
