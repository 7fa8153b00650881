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
