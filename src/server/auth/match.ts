import { type RouteEntry, routeEntries } from "./route-table.js";

export interface RouteMatch {
  entry: RouteEntry;
  params: Record<string, string>;
}

const segments = (path: string) => path.split("/").filter((s) => s !== "");

const decode = (s: string) => {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
};

/**
 * The table entry for a request: literal segments win over `:params` (so `/api/apps/import` is not app
 * "import"), an exact method over `ALL`.
 */
export function routeMatcher(entries: RouteEntry[] = routeEntries()) {
  const compiled = entries.map((e) => ({ e, segs: segments(e.path) }));
  return (method: string, path: string): RouteMatch | undefined => {
    const got = segments(path);
    let best: { m: RouteMatch; score: number } | undefined;
    for (const { e, segs } of compiled) {
      if (segs.length !== got.length) continue;
      if (e.method !== "ALL" && e.method !== method && !(method === "HEAD" && e.method === "GET")) continue;
      const params: Record<string, string> = {};
      let score = e.method === "ALL" ? 0 : 1;
      const ok = segs.every((s, i) => {
        if (s.startsWith(":")) {
          params[s.slice(1)] = decode(got[i]!);
          return true;
        }
        score += 2 ** (segs.length - i + 1);
        return s === got[i];
      });
      if (ok && (!best || score > best.score)) best = { m: { entry: e, params }, score };
    }
    return best?.m;
  };
}
