import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { ProposalProver } from "../apptests/proof.js";
import { Editing } from "../authoring/editing.js";
import type { RunObserver } from "../engine/observer.js";
import type { NodeTypes } from "../ir/registry.js";
import type { ExecServices, ModelRef } from "../ir/services.js";
import type { KnowledgeConfig } from "../knowledge/config.js";
import { KnowledgeBases } from "../knowledge/service.js";
import { configuredNodeModel, createLlmService, hasAnyEndpoint, type LlmConfig } from "../llm/index.js";
import { nodeCatalogue } from "../nodes/index.js";
import type { PriceTable } from "../observability/cost.js";
import type { RunTracing } from "../observability/index.js";
import { AppEnv } from "../secrets/app-env.js";
import { KeyProvider, keyFilePath } from "../secrets/key.js";
import { openStores } from "../store/open.js";
import type { RetentionPolicy } from "../store/runlog.js";
import { scratchAppStore } from "../store/scratch.js";
import { TextDocumentService } from "../tools/documents.js";
import { syncAllTriggers } from "../triggers/sync.js";
import { type DeliveryRecoveryOptions, startDeliveryRecovery } from "../triggers/webhook/recover.js";
import { type AppOptions, createApp } from "./app.js";
import type { ServerDeps } from "./context.js";
import { FileSigner } from "./file-signing.js";
import { RunHub } from "./hub.js";
import { PausedRuns } from "./human-input.js";
import { InFlight } from "./in-flight.js";
import { type LeaseOptions, leaseOptionsFromEnv } from "./leases.js";
import { listenError } from "./listen-error.js";
import { type Pruner, startPruner } from "./retention.js";
import { DEFAULT_WEB_DIR } from "./static.js";
import { resumeContext } from "./v1/runs.js";
import { finishChatTurn } from "./v1/turns.js";
import { scratchDeps, warmDraftPathInBackground } from "./warmup.js";

export { createApp } from "./app.js";
export { ApiError } from "./errors.js";
export { listenError } from "./listen-error.js";

export interface ServerOptions extends AppOptions {
  /** Database specifier (see `openStores`): one database holds the runs and the server's tables. */
  db: string;
  port?: number;
  host?: string;
  services?: Partial<ExecServices>;
  /** The node types new apps and drafts are analysed against and runs execute with; default `nodeCatalogue`. */
  nodeTypes?: NodeTypes;
  /** Model endpoints; the agent chat needs one. */
  llmConfig?: LlmConfig;
  agentModel?: ModelRef;
  agentMaxIterations?: number;
  concurrency?: number;
  /** SQLite `synchronous` for this server's connection (see `SqliteOptions`); "full" by default. */
  synchronous?: "full" | "normal";
  /** How often events of active runs are written to the database (ms). */
  flushMs?: number;
  /** Chunking and embedding of knowledge bases (weft.config.json `knowledge`). */
  knowledgeConfig?: KnowledgeConfig;
  /** Run leases (how soon a stopped server's runs are taken over); default WEFT_RUN_LEASE_MS / _RENEW_MS or 30 s / 10 s. */
  lease?: LeaseOptions;
  /** Run-log retention (weft.config.json `runs.retention`); nothing is pruned without it. */
  retention?: RetentionPolicy;
  retentionIntervalMs?: number;
  /**
   * Warm the draft-save path in the background after listen, so the first autosave is not several times a warm
   * one (`weft serve` turns it on; tests that start servers by the dozen leave it off).
   */
  warmup?: boolean;
  /**
   * Schedule triggers of published apps: run here (the default), queued on Redis for `weft worker`s
   * (`{ redisUrl }`), or not at all (`false`).
   */
  schedules?: false | { redisUrl?: string; tracing?: Pick<RunTracing, "produce"> };
  /**
   * Webhook deliveries stored as accepted whose process died before their run started: started here (default:
   * those older than 30 s, looked at every 10 s).
   */
  deliveryRecovery?: Pick<DeliveryRecoveryOptions, "afterMs" | "intervalMs">;
  /** The secret key file (default: WEFT_SECRET_KEY_FILE, else next to the SQLite file, else ~/.weft/). */
  secretKeyFile?: string;
  /** Observability hook (tracing, metrics) for every run. */
  observer?: RunObserver;
  /** Model prices (weft.config.json `observability.prices`): runs and app usage report a cost. */
  prices?: PriceTable;
  /** Failures the server survives (a store write, a lost run): the event log; default one stderr line each. */
  onFailure?: (what: string, err: unknown) => void;
}

export interface RunningServer {
  /** Prunes the run log by the retention policy (on a timer; tests and operators may call it). */
  pruner: Pruner;
  url: string;
  port: number;
  deps: ServerDeps;
  close(): Promise<void>;
}

export async function openDeps(o: Omit<ServerOptions, "port" | "host">): Promise<ServerDeps> {
  // Read before the database opens, so a bad setting fails the start and leaves nothing open.
  const lease = o.lease ?? leaseOptionsFromEnv();
  const keys = new KeyProvider(keyFilePath(o.db, o.secretKeyFile));
  const stores = await openStores(o.db, { synchronous: o.synchronous });
  const { runs, apps } = stores;
  const env = new AppEnv(stores.env, apps, keys);
  try {
    // A key that does not open every stored secret refuses the start (secret.wrong_key names its source).
    await env.verify();
  } catch (e) {
    await stores.close();
    throw e;
  }
  // Knowledge bases live in this database; workflow runs and the /api/knowledge routes share them.
  const knowledge = new KnowledgeBases(stores.knowledge, {
    // Documents added through /api/knowledge are read even when the caller brought no extractor.
    documents: o.services?.documents ?? new TextDocumentService(),
    llm: o.services?.llm,
    config: o.knowledgeConfig,
  });
  const services = { ...o.services, knowledge: o.services?.knowledge ?? knowledge };
  const agentLlm = o.llmConfig && hasAnyEndpoint(o.llmConfig) ? createLlmService(o.llmConfig) : undefined;
  const nodeModel = o.llmConfig ? configuredNodeModel(o.llmConfig, o.agentModel?.name) : undefined;
  const nodeTypes = o.nodeTypes ?? nodeCatalogue;
  const hub = new RunHub({
    runs,
    nodeTypes,
    apps,
    forms: stores.forms,
    services,
    concurrency: o.concurrency,
    flushMs: o.flushMs,
    lease,
    contextOf: (runId) => resumeContext(deps, runId),
    envOf: (appId) => env.forRun(appId),
    observer: o.observer,
    onFailure: o.onFailure,
  });
  const deps: ServerDeps = {
    stores,
    nodeTypes,
    apps,
    editing: new Editing(apps, (appId, base, proposed) =>
      new ProposalProver({ stores, services, env: (id) => env.forRun(id) }).prove(
        appId,
        base.workflow,
        proposed,
        base.revision,
      ),
    ),
    runs,
    env,
    services,
    knowledge,
    hub,
    paused: new PausedRuns(hub, stores.forms),
    llmConfig: o.llmConfig,
    agentLlm,
    ...(nodeModel ? { nodeModel } : {}),
    agentModel: o.agentModel ?? { provider: "weft-agent", name: "" },
    agentMaxIterations: o.agentMaxIterations,
    fileSigner: new FileSigner(),
    ...(o.prices ? { prices: o.prices } : {}),
  };
  hub.onSegmentEnd((runId, result, context) => finishChatTurn(deps, runId, result, context));
  await deps.paused.start();
  // Last: a run taken over at once (its server stopped) may pause, chat or stream through everything above.
  hub.startLeases();
  return deps;
}

/** Listen on host:port (port 0 = ephemeral). `close` stops accepting, ends live runs, and closes the database. */
export async function startServer(o: ServerOptions): Promise<RunningServer> {
  const deps = await openDeps(o);
  // Apps published by other commands on this database get their trigger rows (webhook ids) now.
  await syncAllTriggers(deps.stores);
  const inFlight = new InFlight();
  const app = createApp(deps, {
    inFlight,
    maxBodyBytes: o.maxBodyBytes,
    webDir: o.webDir ?? DEFAULT_WEB_DIR,
    webhookMaxBodyBytes: o.webhookMaxBodyBytes,
    metrics: o.metrics,
    metricsToken: o.metricsToken,
    log: o.log,
    oidc: o.oidc,
  });
  const host = o.host ?? "127.0.0.1";
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve({ fetch: app.fetch, port: o.port ?? 0, hostname: host }, () => resolve(s));
    s.once("error", (e) => {
      void deps.stores.close();
      reject(listenError(e as NodeJS.ErrnoException, host, o.port ?? 0));
    });
  });
  const port = (server.address() as AddressInfo).port;
  const pruner = startPruner(deps.stores.runLog, o.retention ?? {}, o.retentionIntervalMs, deps.stores.audit);
  const scheduler =
    o.schedules === false ? undefined : await startSchedules(deps, o.schedules?.redisUrl, o.schedules?.tracing);
  const recovery = startDeliveryRecovery({ stores: deps.stores, starter: deps.hub }, o.deliveryRecovery);
  // After listen, so readiness never waits for it; the first autosave then finds the draft path compiled.
  const warmup = o.warmup
    ? warmDraftPathInBackground({
        app,
        scratchStore: () => scratchAppStore(deps.stores.kind),
        scratch: (apps) => createApp(scratchDeps(deps, apps), { maxBodyBytes: o.maxBodyBytes }),
        idle: () => inFlight.idle(),
      })
    : undefined;
  return {
    pruner,
    url: `http://${host.includes(":") ? `[${host}]` : host}:${port}`,
    port,
    deps,
    close: async () => {
      await warmup?.stop();
      pruner.stop();
      await scheduler?.stop();
      await recovery.stop();
      deps.paused.stop();
      deps.hub.stopLeases();
      // No new connections from here; requests already in flight may still start runs, which `shutdown` waits for.
      const closed = new Promise<void>((r) => server.close(() => r()));
      await deps.hub.shutdown();
      // Handlers still reading or writing (a blocking answer, an auth lookup) finish before the database closes.
      await inFlight.stop();
      await deps.hub.drain();
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
      await closed;
      // Every run is recorded before the pool (or file) closes under it.
      await deps.stores.close();
    },
  };
}

/** Every server fires the schedules; the store's claims make each tick one run whatever the number of servers. */
async function startSchedules(
  deps: ServerDeps,
  redisUrl: string | undefined,
  tracing: Pick<RunTracing, "produce"> | undefined,
) {
  const { createScheduleRunner } = await import("../triggers/schedule/runner.js");
  const starter = redisUrl
    ? (await import("../triggers/schedule/queued.js")).queuedStarter(redisUrl, tracing)
    : { start: deps.hub.start.bind(deps.hub) };
  const scheduler = createScheduleRunner({ stores: deps.stores, starter });
  scheduler.start();
  return scheduler;
}
