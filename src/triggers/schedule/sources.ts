import type { Workflow } from "../../ir/workflow.js";
import type { AppStore } from "../../store/apps.js";
import { ScheduleConfigError } from "./errors.js";
import type { ScheduleSpec } from "./spec.js";
import { scheduleSpecOf } from "./ticks.js";

/** Dify's node type of a schedule trigger. */
export const SCHEDULE_NODE_TYPE = "trigger-schedule";

/** One schedule trigger of one published app version, what the scheduler fires. */
export interface ScheduleEntry {
  /** `APP_ID:NODE_ID`: what its bookkeeping is kept under. */
  key: string;
  appId: string;
  nodeId: string;
  version: number;
  workflow: Workflow;
  spec: ScheduleSpec;
  /** False while its trigger is disabled (`weft triggers disable`). */
  enabled: boolean;
}

/** A schedule node whose configuration gives no time: reported, and the app's other schedules still run. */
export interface BrokenSchedule {
  appId: string;
  nodeId: string;
  error: ScheduleConfigError;
}

export const scheduleKey = (appId: string, nodeId: string) => `${appId}:${nodeId}`;

/** The schedule triggers of one workflow (a version of an app). */
export function schedulesOf(
  appId: string,
  version: number,
  workflow: Workflow,
): { entries: ScheduleEntry[]; broken: BrokenSchedule[] } {
  const entries: ScheduleEntry[] = [];
  const broken: BrokenSchedule[] = [];
  for (const node of workflow.nodes) {
    if (node.type !== SCHEDULE_NODE_TYPE) continue;
    try {
      const spec = scheduleSpecOf(node.config, node.id);
      entries.push({
        key: scheduleKey(appId, node.id),
        appId,
        nodeId: node.id,
        version,
        workflow,
        spec,
        enabled: true,
      });
    } catch (e) {
      if (!(e instanceof ScheduleConfigError)) throw e;
      broken.push({ appId, nodeId: node.id, error: e });
    }
  }
  return { entries, broken };
}

/**
 * The schedules of every published app, from its published version only: a draft never fires, and a republish
 * that changes or removes a schedule takes effect at the next poll. A version's schedules are read once and
 * kept while the app's published version stays the same (versions never change).
 */
export class PublishedSchedules {
  private byApp = new Map<string, { version: number; entries: ScheduleEntry[]; broken: BrokenSchedule[] }>();

  constructor(private readonly apps: AppStore) {}

  async load(): Promise<{ entries: ScheduleEntry[]; broken: BrokenSchedule[] }> {
    const entries: ScheduleEntry[] = [];
    const broken: BrokenSchedule[] = [];
    const seen = new Set<string>();
    for (const app of await this.apps.listApps()) {
      if (app.publishedVersion === undefined) continue;
      seen.add(app.id);
      let found = this.byApp.get(app.id);
      if (found?.version !== app.publishedVersion) {
        const v = await this.apps.published(app.id);
        if (!v) continue;
        found = { version: v.version, ...schedulesOf(app.id, v.version, v.workflow) };
        this.byApp.set(app.id, found);
      }
      entries.push(...found.entries);
      broken.push(...found.broken);
    }
    for (const id of this.byApp.keys()) if (!seen.has(id)) this.byApp.delete(id);
    return { entries, broken };
  }
}
