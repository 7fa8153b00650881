import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import type { ExecServices, ModelRef } from "../ir/services.js";
import { configuredNodeModel, createLlmService, hasAnyEndpoint, type LlmConfig } from "../llm/index.js";
import { SqliteRunStore } from "../store/sqlite.js";
import { type AppOptions, createApp } from "./app.js";
import type { ServerDeps } from "./context.js";
import { RunHub } from "./hub.js";
import { Editing } from "./editing.js";
import { DEFAULT_WEB_DIR } from "./static.js";
import { AppStore } from "./store.js";

export { createApp } from "./app.js";
export { ApiError } from "./errors.js";
export { AppStore } from "./store.js";

export interface ServerOptions extends AppOptions {
  /** SQLite file shared by the run store and the server's tables. */
  db: string;
  port?: number;
  host?: string;
  services?: Partial<ExecServices>;
  /** Model endpoints; the agent chat needs one. */
  llmConfig?: LlmConfig;
  agentModel?: ModelRef;
  agentMaxIterations?: number;
  concurrency?: number;
  /**
   * SQLite `synchronous` for this server's connection. "full" (the run store's default) syncs every commit
   * to disk; "normal" (WAL) still survives a killed process but may lose the last commits on power loss,
   * for far higher run throughput.
   */
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

export function openDeps(o: Omit<ServerOptions, "port" | "host">): ServerDeps {
  const runs = new SqliteRunStore(o.db);
  if (o.synchronous === "normal") runs.db.pragma("synchronous = NORMAL");
  const apps = new AppStore(runs.db);
  const services = o.services ?? {};
  const agentLlm = o.llmConfig && hasAnyEndpoint(o.llmConfig) ? createLlmService(o.llmConfig) : undefined;
  const nodeModel = o.llmConfig ? configuredNodeModel(o.llmConfig, o.agentModel?.name) : undefined;
  return {
    apps,
    editing: new Editing(apps),
    runs,
    services,
    hub: new RunHub({ runs, apps, services, concurrency: o.concurrency, flushMs: o.flushMs }),
    llmConfig: o.llmConfig,
    agentLlm,
    ...(nodeModel ? { nodeModel } : {}),
    agentModel: o.agentModel ?? { provider: "weft-agent", name: "" },
    agentMaxIterations: o.agentMaxIterations,
  };
}

/** Listen on host:port (port 0 = ephemeral). `close` stops accepting, ends live runs, and closes the database. */
export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const deps = openDeps(o);
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
      deps.runs.close();
    },
  };
}
