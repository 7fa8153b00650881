import { type FormAnswer, submitForm } from "../engine/human-input.js";
import type { RunResult } from "../engine/run.js";
import { WeftError } from "../ir/errors.js";
import type { FormRecord, FormStore } from "../store/forms.js";
import type { RunHub } from "./hub.js";

/** The longest setTimeout Node honours; later expiries are re-armed when it fires. */
const MAX_DELAY = 2 ** 31 - 1;

function log(what: string, err: unknown): void {
  const why =
    err instanceof WeftError ? `${err.code}: ${err.message}` : err instanceof Error ? err.message : String(err);
  process.stderr.write(`weft server: ${what}: ${why}\n`);
}

/**
 * Paused runs in this server: a form answered (API, CLI on the same database) or expired continues its run
 * from its commits; nothing holds a worker while a run waits. Timers are armed for every waiting form when the
 * server starts and whenever a run pauses, so a timeout takes the node's timeout path after a restart too.
 */
export class PausedRuns {
  private timers = new Map<string, ReturnType<typeof setTimeout>>();

  constructor(
    private readonly hub: RunHub,
    private readonly forms: FormStore,
  ) {
    hub.onSegmentEnd((runId, result) => this.segmentEnded(runId, result));
  }

  /** Arm the timeouts of every form still waiting (server start). */
  async start(): Promise<void> {
    for (const f of await this.forms.waitingForms()) this.arm(f);
  }

  stop(): void {
    for (const t of this.timers.values()) clearTimeout(t);
    this.timers.clear();
  }

  /** Record an answer (first answer wins) and continue the run; refusals are FormErrors. */
  async answer(form: FormRecord, answer: FormAnswer): Promise<FormRecord> {
    const closed = await submitForm(this.forms, form.id, answer, Date.now());
    this.disarm(form.id);
    await this.continue(form.runId);
    return closed;
  }

  /**
   * Resume the run unless it is still running its other branches (then its segment end resumes it); resolves
   * once the run is active again, so a stream opened next follows the new segment.
   */
  private async continue(runId: string): Promise<void> {
    if (this.hub.isActive(runId)) return;
    await this.hub.resume(runId).catch((err: unknown) => {
      // A resume that raced another one finds the run active: that one continues it.
      if (!(err instanceof WeftError && err.code === "run.active")) log(`resuming run ${runId}`, err);
    });
  }

  private arm(f: FormRecord): void {
    if (f.expiresAt === null || this.timers.has(f.id)) return;
    const delay = Math.max(0, f.expiresAt - Date.now());
    const t = setTimeout(
      () => {
        this.timers.delete(f.id);
        if (delay === MAX_DELAY) return this.arm(f);
        void this.expire(f);
      },
      Math.min(delay, MAX_DELAY),
    );
    t.unref?.();
    this.timers.set(f.id, t);
  }

  private disarm(formId: string): void {
    clearTimeout(this.timers.get(formId));
    this.timers.delete(formId);
  }

  private async expire(f: FormRecord): Promise<void> {
    try {
      const closed = await this.forms.closeForm(f.id, { status: "timeout" }, Date.now());
      // Answered just before it expired: that answer's resume continues the run.
      if (closed?.status === "timeout") await this.continue(f.runId);
    } catch (err) {
      log(`timing out form ${f.id} of run ${f.runId}`, err);
    }
  }

  private async segmentEnded(runId: string, result: RunResult): Promise<void> {
    if (result.status !== "paused") return;
    const forms = await this.forms.runForms(runId);
    const keys = new Set((result.paused ?? []).map((p) => p.key));
    const mine = forms.filter((f) => keys.has(f.key));
    for (const f of mine) if (f.status === "waiting") this.arm(f);
    // An answer that came while other branches were still running: continue once this segment has ended.
    if (mine.some((f) => f.status !== "waiting")) setImmediate(() => void this.continue(runId));
  }
}
