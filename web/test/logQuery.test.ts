import { describe, expect, it } from "vitest";
import { none, PAGE, query } from "../src/run/logQuery";

describe("the Logs view's query", () => {
  it("sends only the filters that are set, a page at a time", () => {
    expect(Object.fromEntries(new URLSearchParams(query(none)))).toEqual({ limit: String(PAGE) });
    const q = new URLSearchParams(
      query({ ...none, status: "paused", source: "v1", version: " 3 ", since: "24h", search: " two words" }, "CUR"),
    );
    expect(Object.fromEntries(q)).toEqual({
      limit: String(PAGE),
      status: "paused",
      source: "v1",
      version: "3",
      since: "24h",
      search: " two words",
      cursor: "CUR",
    });
  });

  it("sends the end of the time range as an ISO time, and refuses one that is not a time", () => {
    const until = new URLSearchParams(query({ ...none, until: "2026-03-04T05:06" })).get("until")!;
    expect(until).toBe(new Date("2026-03-04T05:06").toISOString());
    expect(() => query({ ...none, until: "soon" })).toThrow(/"until" is not a time/);
  });
});
