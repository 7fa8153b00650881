import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { ExecServices, ModelRef } from "../ir/services.js";
import { createLlmService, hasAnyEndpoint, type LlmConfig } from "../llm/index.js";
import { openStores } from "../store/open.js";
import { type AppOptions, createApp } from "./app.js";
import type { ServerDeps } from "./context.js";
import { RunHub } from "./hub.js";
import { DEFAULT_WEB_DIR } from "./static.js";

export { createApp } from "./app.js";
export { ApiError } from "./errors.js";

export interface ServerOptions extends AppOptions {
  /** Database specifier (see `openStores`): one database holds the runs and the server's tables. */
  db: string;
  port?: number;
  host?: string;
  services?: Partial<ExecServices>;
  /** Model endpoints; the agent chat needs one. */
  llmConfig?: LlmConfig;
  agentModel?: ModelRef;
  agentMaxIterations?: number;
  concurrency?: number;
  /** SQLite `synchronous` for this server's connection (see `SqliteOptions`); "full" by default. */
  synchronous?: "full" | "normal";
  /** How often events of active runs are written to the database (ms). */
  flushMs?: number;
}

export interface RunningServer {
  url: string;
  port: number;
  deps: ServerDeps;
  close(): Promise<void>;
}

export async function openDeps(o: Omit<ServerOptions, "port" | "host">): Promise<ServerDeps> {
  const stores = await openStores(o.db, { synchronous: o.synchronous });
  const { runs, apps } = stores;
  const services = o.services ?? {};
  const agentLlm = o.llmConfig && hasAnyEndpoint(o.llmConfig) ? createLlmService(o.llmConfig) : undefined;
  return {
    stores,
    apps,
    runs,
    services,
    hub: new RunHub({ runs, apps, services, concurrency: o.concurrency, flushMs: o.flushMs }),
    llmConfig: o.llmConfig,
    agentLlm,
    agentModel: o.agentModel ?? { provider: "weft-agent", name: "" },
    agentMaxIterations: o.agentMaxIterations,
  };
}

/** Listen on host:port (port 0 = ephemeral). `close` stops accepting, ends live runs, and closes the database. */
export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const deps = await openDeps(o);
  const app = createApp(deps, { maxBodyBytes: o.maxBodyBytes, webDir: o.webDir ?? DEFAULT_WEB_DIR });
  const host = o.host ?? "127.0.0.1";
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: o.port ?? 0, hostname: host }, () => resolve(s));
    s.once("error", reject);
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    deps,
    close: async () => {
      deps.hub.abortAll();
      await deps.hub.drain();
      await new Promise<void>((r) => {
        server.close(() => r());
        (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      });
      await deps.stores.close();
    },
  };
}
