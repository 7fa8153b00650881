/**
 * The server's start-up warm-up (src/server/warmup.ts): it saves drafts only into a scratch store, never the
 * user's; it runs every save through the draft route and answers 200 each time (a refusal would mean it warmed
 * nothing); `stop` ends it between passes and its scratch store is closed; a server started with it stops cleanly.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { InFlight } from "../../src/server/in-flight.js";
import { createApp, openDeps } from "../../src/server/index.js";
import { scratchDeps, warmDraftPathInBackground } from "../../src/server/warmup.js";
import type { AppStore } from "../../src/store/apps.js";
import { scratchAppStore } from "../../src/store/scratch.js";
import { startTestServer } from "./helpers.js";

const dir = mkdtempSync(join(tmpdir(), "weft-warmup-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function sqliteDeps(name: string) {
  const deps = await openDeps({ db: join(dir, name) });
  return {
    deps,
    close: async () => {
      deps.hub.stopLeases();
      deps.paused.stop();
      await deps.stores.close();
    },
  };
}

/** A target whose scratch store and draft answers are recorded. */
function recorded(deps: Awaited<ReturnType<typeof openDeps>>) {
  const seen = { statuses: [] as number[], closed: 0, health: 0, kind: "" };
  const app = createApp(deps);
  return {
    seen,
    target: {
      app: {
        request: async (path: string) => {
          if (path === "/health") seen.health++;
          return app.request(path);
        },
      },
      scratchStore: () => {
        const s = scratchAppStore(deps.stores.kind);
        seen.kind = s.apps.constructor.name;
        return {
          apps: s.apps,
          close: () => {
            seen.closed++;
            return s.close();
          },
        };
      },
      scratch: (apps: AppStore) => {
        const scratch = createApp(scratchDeps(deps, apps));
        return {
          request: async (path: string, init?: RequestInit) => {
            const res = await scratch.request(path, init);
            seen.statuses.push(res.status);
            return res;
          },
        };
      },
    },
  };
}

describe("start-up warm-up", () => {
  it("saves every pass through the draft route into a scratch SQLite store, closes it, and leaves the user's database alone", async () => {
    const { deps, close } = await sqliteDeps("a.db");
    try {
      const { seen, target } = recorded(deps);
      await warmDraftPathInBackground(target, 3).done;
      expect(seen).toMatchObject({ statuses: [200, 200, 200], closed: 1, health: 1, kind: "SqliteAppStore" });
      expect(await deps.apps.listApps()).toEqual([]);
      expect(await deps.apps.listKeys()).toEqual([]);
      // The saves are audited, but not in the user's log.
      expect(await deps.stores.audit.list({})).toEqual([]);
    } finally {
      await close();
    }
  });

  it("stop ends it before the next pass and still closes the scratch store", async () => {
    const { deps, close } = await sqliteDeps("b.db");
    try {
      const { seen, target } = recorded(deps);
      const w = warmDraftPathInBackground(target, 1000);
      await expect.poll(() => seen.statuses.length).toBeGreaterThan(0);
      await w.stop();
      const after = seen.statuses.length;
      expect(after).toBeLessThan(1000);
      expect(seen.closed).toBe(1);
      await w.done;
      expect(seen.statuses.length).toBe(after);
    } finally {
      await close();
    }
  });

  it("runs no pass while the server handles a request, and a stop does not wait for the request", async () => {
    const { deps, close } = await sqliteDeps("busy.db");
    try {
      const { seen, target } = recorded(deps);
      const inFlight = new InFlight();
      const server = new Hono();
      server.use("*", inFlight.middleware);
      let release!: () => void;
      const held = new Promise<void>((r) => {
        release = r;
      });
      server.get("/slow", async (c) => {
        await held;
        return c.text("done");
      });
      let never!: () => void;
      server.get("/never", async (c) => {
        await new Promise<void>((r) => {
          never = r;
        });
        return c.text("late");
      });
      let idleAsked = 0;
      const slow = server.request("/slow");
      const w = warmDraftPathInBackground(
        {
          ...target,
          idle: () => {
            idleAsked++;
            return inFlight.idle();
          },
        },
        3,
      );
      await expect.poll(() => idleAsked).toBe(1);
      // Held before its first step (the router's /health): nothing ran while the request is handled.
      expect(seen.health).toBe(0);
      release();
      await slow;
      await w.done;
      expect(seen.statuses).toEqual([200, 200, 200]);

      // Held again by a request that never ends: stop still returns.
      const pending = server.request("/never");
      let asked = 0;
      const idle = () => {
        asked++;
        return inFlight.idle();
      };
      const w2 = warmDraftPathInBackground({ ...recorded(deps).target, idle }, 3);
      await expect.poll(() => asked).toBe(1);
      await w2.stop();
      never();
      await pending;
    } finally {
      await close();
    }
  });

  it("a server started with it answers at once and closes while it runs", async () => {
    const s = await startTestServer({ warmup: true });
    const res = await fetch(`${s.url}/health`);
    expect(await res.json()).toEqual({ ok: true });
    await s.stop();
  });
});
