import type { MiddlewareHandler } from "hono";
import { ApiError } from "./errors.js";

/**
 * The requests the server is handling. A stopping server waits for their handlers (not for streamed bodies,
 * which read from memory) before it closes the database, and answers 503 to any that arrive meanwhile.
 */
export class InFlight {
  private readonly handling = new Set<Promise<unknown>>();
  private stopping = false;

  readonly middleware: MiddlewareHandler = async (_c, next) => {
    if (this.stopping) throw new ApiError(503, "server.stopping", "the server is shutting down; try again shortly");
    const p = next();
    this.handling.add(p);
    try {
      await p;
    } finally {
      this.handling.delete(p);
    }
  };

  /** Refuse new requests from now on and wait until every handler running has returned. */
  async stop(): Promise<void> {
    this.stopping = true;
    while (this.handling.size > 0) await Promise.allSettled([...this.handling]);
  }
}
