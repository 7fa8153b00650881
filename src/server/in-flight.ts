import type { MiddlewareHandler } from "hono";
import { ApiError } from "./errors.js";

/**
 * The requests the server is handling. A stopping server waits for their handlers (not for streamed bodies,
 * which read from memory) before it closes the database, and answers 503 to any that arrive meanwhile.
 */
export class InFlight {
  private readonly handling = new Set<Promise<unknown>>();
  private stopping = false;
  /** Waiting for a moment with no handler running (idle()). */
  private idlers: Array<() => void> = [];

  readonly middleware: MiddlewareHandler = async (_c, next) => {
    if (this.stopping) throw new ApiError(503, "server.stopping", "the server is shutting down; try again shortly");
    const p = next();
    this.handling.add(p);
    try {
      await p;
    } finally {
      this.handling.delete(p);
      if (this.handling.size === 0 && this.idlers.length > 0) {
        const idlers = this.idlers;
        this.idlers = [];
        for (const r of idlers) r();
      }
    }
  };

  /** Resolves once no handler is running (at once when none is). */
  idle(): Promise<void> {
    if (this.handling.size === 0) return Promise.resolve();
    return new Promise((r) => this.idlers.push(r));
  }

  /** Refuse new requests from now on and wait until every handler running has returned. */
  async stop(): Promise<void> {
    this.stopping = true;
    while (this.handling.size > 0) await Promise.allSettled([...this.handling]);
  }
}
