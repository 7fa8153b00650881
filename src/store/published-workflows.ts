import type { Workflow } from "../ir/workflow.js";

/** Apps whose published workflow is kept parsed (the oldest entry is dropped past this). */
const KEPT_APPS = 256;

function deepFreeze<T>(v: T): T {
  if (v !== null && typeof v === "object" && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const child of Object.values(v)) deepFreeze(child);
  }
  return v;
}

/**
 * Each app's published workflow, parsed once per stored text and the same object for every request that runs
 * it. Every /v1 request read and parsed the version's JSON, and a fresh object also missed the caches keyed by
 * the workflow's nodes (describeNode's schema parse, the scheduler's graph): together about 0.3 ms of CPU per
 * 5-node request, measured. Keyed by the text the store just read, not invalidated by hand: the store still reads
 * the published row on every call, so a publish (by this process or another on the same database) is seen by
 * the next request. Frozen, so a caller that changed it in place would throw instead of changing every later
 * request's workflow.
 */
export class PublishedWorkflows {
  private readonly byApp = new Map<string, { text: string; workflow: Workflow }>();

  /** The workflow stored as `text` for `appId`'s published version. */
  of(appId: string, text: string): Workflow {
    const kept = this.byApp.get(appId);
    if (kept?.text === text) return kept.workflow;
    const workflow = deepFreeze(JSON.parse(text) as Workflow);
    this.byApp.delete(appId);
    this.byApp.set(appId, { text, workflow });
    if (this.byApp.size > KEPT_APPS) this.byApp.delete(this.byApp.keys().next().value!);
    return workflow;
  }
}
