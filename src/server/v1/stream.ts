import type { Context } from "hono";
import type { RunHub, StampedEvent } from "../hub.js";
import { pumpSSE } from "../sse.js";
import { type DifyEvent, DifyTranslator, type StreamContext } from "./translate.js";

/**
 * Where a stream starts: the run's first event (the request that started it), after an event the client saw
 * (`Last-Event-ID`), at the start of the latest run segment (a client following a resumed run), or with Dify's
 * state snapshot (workflow_started and each executed node's start and finish, then new events).
 */
export type StreamFrom =
  | { kind: "start" }
  | { kind: "after"; event: number; part: number }
  | { kind: "segment" }
  | { kind: "snapshot" };

export interface DifyStreamOptions {
  ctx: StreamContext;
  from: StreamFrom;
  /** Keep the stream open across workflow_paused (Dify's `continue_on_pause`). */
  continueOnPause?: boolean;
  pingMs?: number;
  /** Fills in the files' signed URLs as each event is sent (they expire, so never when translated). */
  fileUrls?: <T>(value: T) => T;
}

/** `Last-Event-ID` of a Dify stream: `<event>.<part>` (the part of one Weft event's Dify events). */
export function parseEventId(raw: string | undefined): { event: number; part: number } | undefined {
  const m = /^(\d+)\.(\d+)$/.exec(raw?.trim() ?? "");
  return m ? { event: Number(m[1]), part: Number(m[2]) } : undefined;
}

const SNAPSHOT = new Set(["workflow_started", "node_started", "node_finished"]);

/** Dify's snapshot payloads leave the details out (`to_ignore_detail_dict`). */
function withoutDetail(e: DifyEvent): DifyEvent {
  if (e.event === "workflow_started") return e;
  const data = { ...(e.data as Record<string, unknown>), inputs: null };
  if (e.event === "node_finished")
    Object.assign(data, { process_data: null, outputs: null, error: null, execution_metadata: null, files: [] });
  return { ...e, data };
}

/** The event that ends a stream: message_end in chat apps (it follows workflow_finished), workflow_finished otherwise. */
function isTerminal(e: DifyEvent, continueOnPause: boolean, chat: boolean): boolean {
  if (e.event === "error" || (e.event === "workflow_paused" && !continueOnPause)) return true;
  return chat ? e.event === "message_end" : e.event === "workflow_finished";
}

/**
 * A run's Dify stream over SSE: `data: {json}` lines as Dify writes them (no `event:` field, so EventSource's
 * default handler gets them), each with an `id:` a client can send back as `Last-Event-ID`, and Dify's
 * `event: ping` every 10 s. The translation always runs from the run's first event, so ids and payloads are
 * the same however late a client comes; the stream ends at workflow_finished, error or workflow_paused.
 */
export function difyStream(c: Context, hub: RunHub, o: DifyStreamOptions): Response {
  const runId = o.ctx.runId;
  const tr = new DifyTranslator(o.ctx);
  const continueOnPause = !!o.continueOnPause;
  const chat = o.ctx.mode === "advanced-chat";
  const urls = o.fileUrls ?? (<T>(v: T) => v);
  let i = 0;
  let startAt = 0;
  let skipThrough: { event: number; part: number } | undefined;
  let finished = false;
  let pausedAtEnd = false;
  return pumpSSE(
    c,
    async (wake) => {
      const sub = await hub.subscribe(runId, wake);
      const initial = sub.events();
      if (o.from.kind === "after") skipThrough = o.from;
      if (o.from.kind === "segment") {
        // A run being resumed whose new segment has not logged its start yet: follow the new segment.
        const between = initial.at(-1)?.type === "run_finished" && sub.active();
        startAt = between ? initial.length : Math.max(0, initial.map((e) => e.type).lastIndexOf("run_started"));
      }
      const snapshot: DifyEvent[] = [];
      if (o.from.kind === "snapshot") {
        startAt = initial.length;
        const seen = initial.flatMap((e) => tr.next(e));
        i = initial.length;
        snapshot.push(...seen.filter((e) => SNAPSHOT.has(e.event)));
        // The pause the run is in now (not earlier ones it was resumed from) closes the snapshot.
        const last = initial.at(-1);
        const pause = seen.findLast((e) => e.event === "workflow_paused");
        if (last?.type === "run_finished" && last.status === "paused" && pause) snapshot.push(pause);
        pausedAtEnd = last?.type === "run_finished" && last.status === "paused";
      }
      let snapshotSent = false;
      return {
        close: sub.close,
        pump: async (s) => {
          if (!snapshotSent) {
            snapshotSent = true;
            for (const e of snapshot) {
              await s.write(`data: ${JSON.stringify(urls(withoutDetail(e)))}\n\n`);
              if (isTerminal(e, continueOnPause, chat)) return false;
            }
          }
          const events: StampedEvent[] = sub.events();
          for (; i < events.length && !finished; i++) {
            const ev = events[i]!;
            // The end is sent once the segment's listeners ran (a chat turn's message and conversation are
            // stored), so a client acting on workflow_finished finds them.
            if (ev.type === "run_finished" && sub.active()) break;
            const out = tr.next(ev);
            if (ev.type === "run_started") pausedAtEnd = false;
            if (ev.type === "run_finished") pausedAtEnd = ev.status === "paused";
            if (i < startAt) continue;
            for (let part = 0; part < out.length; part++) {
              if (skipThrough && (i < skipThrough.event || (i === skipThrough.event && part <= skipThrough.part)))
                continue;
              const e = out[part]!;
              await s.write(`id: ${i}.${part}\ndata: ${JSON.stringify(urls(e))}\n\n`);
              if (isTerminal(e, continueOnPause, chat)) finished = true;
            }
          }
          if (finished) return false;
          return sub.active() || (continueOnPause && pausedAtEnd);
        },
      };
    },
    { keepAliveMs: o.pingMs ?? 10_000, keepAlive: "event: ping\n\n" },
  );
}

/** Every Dify event of a run's log so far (blocking responses and finished runs read the final ones). */
export function translateAll(ctx: StreamContext, events: readonly StampedEvent[]): DifyEvent[] {
  const tr = new DifyTranslator(ctx);
  return events.flatMap((e) => tr.next(e));
}
