/** What a studio URL names: `/` the app list, `/apps/:id` an app, `/apps/:id/runs/:runId` one of its runs. */
export interface Route {
  appId?: string;
  runId?: string;
}

export function parseRoute(pathname: string): Route {
  const m = /^\/apps\/([^/]+)(?:\/runs\/([^/]+))?\/?$/.exec(pathname);
  if (!m) return {};
  try {
    return { appId: decodeURIComponent(m[1]!), ...(m[2] ? { runId: decodeURIComponent(m[2]) } : {}) };
  } catch {
    // A malformed escape names no app: the list opens.
    return {};
  }
}

export function routePath(r: Route): string {
  if (!r.appId) return "/";
  const app = `/apps/${encodeURIComponent(r.appId)}`;
  return r.runId ? `${app}/runs/${encodeURIComponent(r.runId)}` : app;
}

/**
 * The Knowledge section's paths: `/knowledge` the list of bases, `/knowledge/:id` one base. Undefined for any
 * other path; a malformed escape names the list.
 */
export function parseKnowledgePath(pathname: string): { baseId?: string } | undefined {
  const m = /^\/knowledge(?:\/([^/]+))?\/?$/.exec(pathname);
  if (!m) return undefined;
  if (!m[1]) return {};
  try {
    return { baseId: decodeURIComponent(m[1]) };
  } catch {
    return {};
  }
}

export const knowledgePath = (baseId?: string): string =>
  baseId ? `/knowledge/${encodeURIComponent(baseId)}` : "/knowledge";
