/**
 * The SSRF guard's reserved ranges are parsed on the first address checked, not when tools/http.ts loads: every
 * command that builds services loads it, and node's first IPv6 parse (`isIP`) costs a few ms a run without an HTTP
 * request never needs (issue 33, start-up). The ranges themselves are pinned by http-guard.test.ts.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";

const isIP = vi.hoisted(() => ({ calls: 0 }));
vi.mock("node:net", async (original) => {
  const net = await original<typeof import("node:net")>();
  return {
    ...net,
    isIP: (s: string) => {
      isIP.calls++;
      return net.isIP(s);
    },
  };
});

// The shared project (vitest.config.ts) keeps modules from file to file: import afresh, so the mock applies.
beforeEach(() => vi.resetModules());
afterEach(() => vi.resetModules());

describe("the guard's ranges", () => {
  it("are not parsed when the module loads, only when an address is first checked", async () => {
    const { blockedReason, GuardedHttpService } = await import("../../src/tools/http.js");
    new GuardedHttpService({ allowPrivate: false, allowHosts: [] });
    expect(isIP.calls).toBe(0);
    expect(blockedReason("::1")).toBe("::1 is in a reserved or private range");
    expect(blockedReason("::ffff:10.0.0.1")).toMatch(/embeds 10\.0\.0\.1/);
    expect(blockedReason("8.8.8.8")).toBeUndefined();
    expect(isIP.calls).toBeGreaterThan(0);
  });
});
