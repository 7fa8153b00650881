/** The Logs view's filters as GET /api/apps/:id/runs takes them (src/server/run-query.ts reads them strictly). */
export const PAGE = 20;

export interface Filters {
  status: string;
  source: string;
  version: string;
  since: string;
  until: string;
  search: string;
}
export const none: Filters = { status: "", source: "", version: "", since: "", until: "", search: "" };

export function query(f: Filters, cursor?: string): string {
  const q = new URLSearchParams({ limit: String(PAGE) });
  for (const k of ["status", "source", "version", "since"] as const) if (f[k].trim()) q.set(k, f[k].trim());
  // The text is searched as typed; only an empty box means no search.
  if (f.search.trim()) q.set("search", f.search);
  if (f.until) {
    // datetime-local is local time without a zone: the server takes ISO times.
    const t = new Date(f.until);
    if (Number.isNaN(t.getTime())) throw new Error(`"until" is not a time: ${JSON.stringify(f.until)}`);
    q.set("until", t.toISOString());
  }
  if (cursor) q.set("cursor", cursor);
  return q.toString();
}
