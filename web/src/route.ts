import { useSyncExternalStore } from "react";

export { knowledgePath, parseKnowledgePath, parseRoute, type Route, routePath } from "./routePath";

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
