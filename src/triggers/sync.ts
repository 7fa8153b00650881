import type { Stores } from "../store/stores.js";
import type { TriggerRecord } from "../store/triggers.js";
import { triggerKind, triggerNodes } from "./entry.js";
import { mintTriggerId } from "./ids.js";

/**
 * Make the app's trigger rows match its published version: one per trigger node, ids minted for new ones
 * (so an imported app, a new app, gets new webhook ids), none for an unpublished app.
 */
export async function syncAppTriggers(stores: Stores, appId: string): Promise<TriggerRecord[]> {
  const published = await stores.apps.published(appId);
  const nodes = published
    ? triggerNodes(published.workflow).map((t) => ({ nodeId: t.nodeId, type: triggerKind(t.type) }))
    : [];
  return stores.triggers.sync(appId, nodes, mintTriggerId);
}

/** Every app's rows (a server starting on a database other commands wrote to). */
export async function syncAllTriggers(stores: Stores): Promise<void> {
  const apps = await stores.apps.listApps();
  const live = new Set(apps.map((a) => a.id));
  for (const a of apps) await syncAppTriggers(stores, a.id);
  // Triggers of deleted apps.
  for (const t of await stores.triggers.list()) if (!live.has(t.appId)) await stores.triggers.deleteApp(t.appId);
}
