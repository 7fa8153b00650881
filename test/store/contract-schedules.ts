// Schedule bookkeeping, part of the store contract: every backend (memory, SQLite, PostgreSQL) runs it from
// contract.test.ts through describeStoreContract.
import { expect, it } from "vitest";
import { type StoreTarget, withStores } from "./store-target.js";

const ident = { key: "trig-1", appId: "app-1", nodeId: "sched" };

export function describeSchedules(target: StoreTarget): void {
  it("schedules: sync inserts a baseline, keeps an unchanged schedule, resets a changed cron or zone", () =>
    withStores(target, async ({ schedules }) => {
      expect(await schedules.get("trig-1")).toBeUndefined();
      const s = await schedules.sync({ ...ident, cron: "* * * * *", timezone: "UTC" }, 1_000, 1_000);
      expect(s).toEqual({ ...ident, cron: "* * * * *", timezone: "UTC", lastTick: 1_000, updatedAt: 1_000 });
      expect(await schedules.advance("trig-1", 60_000, 61_000)).toBe(true);
      // Same schedule: the stored last tick stays.
      expect((await schedules.sync({ ...ident, cron: "* * * * *", timezone: "UTC" }, 90_000, 90_000)).lastTick).toBe(
        60_000,
      );
      // Another zone: a new schedule, from the new baseline.
      expect(
        (await schedules.sync({ ...ident, cron: "* * * * *", timezone: "Europe/Berlin" }, 95_000, 95_000)).lastTick,
      ).toBe(95_000);
      expect(
        (await schedules.sync({ ...ident, cron: "0 * * * *", timezone: "Europe/Berlin" }, 96_000, 96_000)).cron,
      ).toBe("0 * * * *");
      expect((await schedules.list()).map((x) => x.key)).toEqual(["trig-1"]);
      await schedules.remove("trig-1");
      expect(await schedules.list()).toEqual([]);
    }));

  it("schedules: a tick is claimed once; fired ticks are recorded, dispatched, re-claimed by one taker", () =>
    withStores(target, async ({ schedules }) => {
      await schedules.sync({ ...ident, cron: "* * * * *", timezone: "UTC" }, 0, 0);
      const claims = await Promise.all(
        Array.from({ length: 8 }, (_, i) => schedules.advance("trig-1", 60_000, 60_500, { runId: `run-${i}` })),
      );
      expect(claims.filter(Boolean)).toHaveLength(1);
      const winner = `run-${claims.indexOf(true)}`;
      // An older tick can no longer be claimed; a skip moves the state without a fired row.
      expect(await schedules.advance("trig-1", 30_000, 61_000, { runId: "late" })).toBe(false);
      expect(await schedules.advance("trig-1", 120_000, 121_000)).toBe(true);
      expect(await schedules.fires("trig-1", 10)).toEqual([
        { key: "trig-1", tick: 60_000, runId: winner, claimedAt: 60_500 },
      ]);
      expect(await schedules.undispatched(60_500)).toEqual([]);
      expect((await schedules.undispatched(60_501)).map((f) => f.runId)).toEqual([winner]);
      const takers = await Promise.all([1, 2, 3].map(() => schedules.reclaim("trig-1", 60_000, 60_500, 200_000)));
      expect(takers.filter(Boolean)).toHaveLength(1);
      await schedules.markDispatched("trig-1", 60_000, 200_100);
      expect(await schedules.undispatched(1e12)).toEqual([]);
      expect(await schedules.reclaim("trig-1", 60_000, 200_000, 300_000)).toBe(false);
      expect((await schedules.fires("trig-1", 10))[0]).toMatchObject({ dispatchedAt: 200_100, claimedAt: 200_000 });
      // An unknown schedule claims nothing.
      expect(await schedules.advance("nope", 60_000, 1, { runId: "x" })).toBe(false);
      expect(await schedules.fires("nope", 10)).toEqual([]);
    }));

  if (target.openAgain) {
    const again = target.openAgain.bind(target);
    it("schedules: two connections racing for the same ticks: each tick fires exactly once", async () => {
      const a = await target.open();
      const b = await again();
      try {
        await a.schedules.sync({ ...ident, cron: "* * * * *", timezone: "UTC" }, 0, 0);
        await b.schedules.sync({ ...ident, cron: "* * * * *", timezone: "UTC" }, 5, 5);
        for (let t = 1; t <= 5; t++) {
          const won = await Promise.all([
            a.schedules.advance("trig-1", t * 60_000, t * 60_000, { runId: `a-${t}` }),
            b.schedules.advance("trig-1", t * 60_000, t * 60_000, { runId: `b-${t}` }),
          ]);
          expect(won.filter(Boolean)).toHaveLength(1);
        }
        expect((await b.schedules.fires("trig-1", 10)).map((f) => f.tick)).toEqual(
          [5, 4, 3, 2, 1].map((t) => t * 60_000),
        );
      } finally {
        await a.close();
        await b.close();
      }
    });
  }
}
