import type { Workflow } from "../ir/workflow.js";

/**
 * One object per distinct workflow among the jobs a worker takes. Every job carries its workflow as JSON, so
 * each arrives as a new object, and what the engine derives from a workflow is memoised per object (each node's
 * parsed config in `describeNode`, the graph's index): without this a worker parsed every node's config with
 * its zod schema again for every run (a tenth of a queued run's CPU, measured), where a process that runs the
 * same workflow object again parses it once. Two workflows with the same JSON are the same workflow (IR objects
 * are never changed once built), so a job whose workflow's text was seen before runs on the object kept for it.
 *
 * Bounded by the workflows' total text (least recently used first out): a workflow too large to keep is used
 * as it came.
 */
export class WorkflowMemo {
  private readonly byText = new Map<string, Workflow>();
  private chars = 0;

  constructor(
    /** Total JSON characters of the workflows kept. */
    private readonly maxChars = 8_000_000,
    private readonly maxEntries = 256,
  ) {}

  /** The kept object for this workflow's text, or `wf` itself (now kept, if it fits). */
  same(wf: Workflow): Workflow {
    const text = JSON.stringify(wf);
    const kept = this.byText.get(text);
    if (kept) {
      // Most recently used last: a Map iterates in insertion order.
      this.byText.delete(text);
      this.byText.set(text, kept);
      return kept;
    }
    if (text.length > this.maxChars / 4) return wf;
    this.byText.set(text, wf);
    this.chars += text.length;
    for (const oldest of this.byText.keys()) {
      if (this.byText.size <= this.maxEntries && this.chars <= this.maxChars) break;
      this.byText.delete(oldest);
      this.chars -= oldest.length;
    }
    return wf;
  }

  /** Workflows kept (tests). */
  get size(): number {
    return this.byText.size;
  }
}
