import type { Context } from "hono";
import { type SSEStreamingApi, streamSSE } from "hono/streaming";

/**
 * An SSE response fed by a pull loop: `pump` writes what is available and returns false when the stream is
 * complete; otherwise the loop sleeps until `wake()` is called. Comments keep idle connections open.
 */
export interface PumpSource {
  pump: (s: SSEStreamingApi) => Promise<boolean>;
  close: () => void;
}

export function pumpSSE(
  c: Context,
  setup: (wake: () => void) => PumpSource | Promise<PumpSource>,
  opts: { keepAliveMs?: number; keepAlive?: string } = {},
): Response {
  return streamSSE(c, async (stream) => {
    let wakeUp: (() => void) | undefined;
    let aborted = false;
    // A wake while `pump` runs (no one waiting yet) is kept, else the loop would sleep through a run's end.
    let pending = false;
    const wake = () => {
      const w = wakeUp;
      wakeUp = undefined;
      if (w) w();
      else pending = true;
    };
    stream.onAbort(() => {
      aborted = true;
      wake();
    });
    const src = await setup(wake);
    const keepAlive = setInterval(
      () => void stream.write(opts.keepAlive ?? ": keep-alive\n\n").catch(() => {}),
      opts.keepAliveMs ?? 15_000,
    );
    try {
      while (!aborted) {
        pending = false;
        if (!(await src.pump(stream))) break;
        if (aborted) break;
        if (pending) continue;
        await new Promise<void>((r) => {
          wakeUp = r;
        });
      }
    } finally {
      clearInterval(keepAlive);
      src.close();
    }
  });
}
