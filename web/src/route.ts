import { useSyncExternalStore } from "react";

/** What a studio URL names: `/` the app list, `/apps/:id` an app, `/apps/:id/runs/:runId` one of its runs. */
export interface Route {
  appId?: string;
  runId?: string;
}

export function parseRoute(pathname: string): Route {
  const m = /^\/apps\/([^/]+)(?:\/runs\/([^/]+))?\/?$/.exec(pathname);
  if (!m) return {};
  return { appId: decodeURIComponent(m[1]!), ...(m[2] ? { runId: decodeURIComponent(m[2]) } : {}) };
}

export function routePath(r: Route): string {
  if (!r.appId) return "/";
  const app = `/apps/${encodeURIComponent(r.appId)}`;
  return r.runId ? `${app}/runs/${encodeURIComponent(r.runId)}` : app;
}

const listeners = new Set<() => void>();
const notify = () => {
  for (const l of listeners) l();
};
window.addEventListener("popstate", notify);

/** Go to a studio path: a new history entry (or the current one replaced), then every `useRoute` re-renders. */
export function go(path: string, replace = false): void {
  if (path === location.pathname) return;
  if (replace) history.replaceState(null, "", path);
  else history.pushState(null, "", path);
  notify();
}

/** The current path; changes on `go` and on the browser's back and forward. */
export function useRoute(): string {
  return useSyncExternalStore(
    (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    () => location.pathname,
  );
}
