import type { Store } from "./state";

/** An API path under the open app. */
export const appPath = ({ get }: Store, rest: string) => `/api/apps/${get().app!.id}${rest}`;
