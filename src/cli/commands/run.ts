import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import type { Command } from "@commander-js/extra-typings";
import { analyse, runGate } from "../../analysis/index.js";
import { pendingForm, StoredHumanInput } from "../../engine/human-input.js";
import { checkInputNames, checkRunInputs, InputError } from "../../engine/inputs.js";
import { openTracing, queueSpanAttributes, type RunTracing, type TraceCarrier } from "../../observability/index.js";
import { type SummedUsage, storedRunUsage, summedUsage } from "../../observability/run-usage.js";
import type { RunEvent } from "../../store/run-events.js";

export { queueSpanAttributes };

import { type RunResult, runWorkflow } from "../../engine/run.js";
import { formatDiagnostic } from "../../ir/diagnostics.js";
import { WeftError } from "../../ir/errors.js";
import { nodeTypesFor } from "../../nodes/registry.js";
import { attachKnowledge, type BuiltServices, buildServices } from "../../runtime/services.js";
import { servingDiagnostics } from "../../runtime/serving.js";
import { parseRunQuery, runLink } from "../../server/run-query.js";
import { openStores, type Stores } from "../../store/open.js";
import { RUN_LOG_STATUSES, RUN_SOURCES } from "../../store/runlog.js";
import type { AttemptRecord } from "../../store/runs.js";
import { extensionOf, mimeForExtension } from "../../tools/mime.js";
import { newId } from "../../util/ids.js";
import { DB_HELP, loadWeftConfig } from "../config.js";
import { describeForm } from "../forms.js";
import { readWorkflow } from "../io.js";
import { CliError, EXIT, printJson } from "../output.js";

/** The file's MIME type by extension (mime-db, plus the Dify extensions it lacks). */
function mimeOf(path: string): string {
  return mimeForExtension(extensionOf(path)) ?? "application/octet-stream";
}

export function collect(v: string, prev: string[]): string[] {
  return [...prev, v];
}

export function splitPair(raw: string, flag: string): [string, string] {
  const i = raw.indexOf("=");
  if (i <= 0) throw new CliError("usage.input", `${flag} expects key=value, got "${raw}"`);
  return [raw.slice(0, i), raw.slice(i + 1)];
}

function portNumber(raw: string, flag: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n > 65535) throw new CliError("usage.port", `${flag} must be 0-65535, got "${raw}"`);
  return n;
}

function positiveInt(raw: string, flag: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < 1)
    throw new CliError("usage.number", `${flag} expects a whole number of at least 1, got "${raw}"`);
  return n;
}

export function progress(json: boolean): (e: RunEvent) => void {
  const tty = process.stderr.isTTY && !json;
  return (e) => {
    if (!tty) return;
    if (e.type === "node_started")
      process.stderr.write(`▶ ${e.nodeId} (${e.nodeType}) ${e.title}${e.attempt > 1 ? ` attempt ${e.attempt}` : ""}\n`);
    else if (e.type === "node_finished")
      process.stderr.write(
        `${e.status === "failed" ? "✗" : e.status === "exception" ? "!" : "✓"} ${e.nodeId} ${e.status}${e.cached ? " (resumed)" : ""} ${e.durationMs} ms${e.error ? ` — ${e.error.message}` : ""}\n`,
      );
    else if (e.type === "node_skipped") process.stderr.write(`· ${e.nodeId} skipped\n`);
    else if (e.type === "node_retry") process.stderr.write(`↻ ${e.nodeId} retry: ${e.reason}\n`);
  };
}

function truncate(v: unknown, n = 200): string {
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s === undefined ? "" : s.length > n ? `${s.slice(0, n)}…` : s;
}

export function formatTrace(trace: AttemptRecord[]): string {
  return trace
    .map((t) => {
      const head = `${t.key} [${t.nodeType}] ${t.title || ""} attempt ${t.attempt}: ${t.status} (${t.endedAt - t.startedAt} ms)${t.port && t.port !== "source" ? ` → ${t.port}` : ""}`;
      const lines = [head, `  inputs: ${truncate(t.inputs)}`];
      if (t.outputs) lines.push(`  outputs: ${truncate(t.outputs)}`);
      if (t.error) lines.push(`  error: ${t.error.code}: ${t.error.message}`);
      if (t.usage) lines.push(`  tokens: ${t.usage.totalTokens}`);
      return lines.join("\n");
    })
    .join("\n");
}

export function finish(result: RunResult, opts: { json?: boolean; trace?: boolean }): void {
  if (opts.json)
    printJson({
      runId: result.runId,
      status: result.status,
      outputs: result.outputs,
      error: result.error,
      ...(result.paused ? { paused: result.paused } : {}),
      ...(opts.trace ? { trace: result.trace } : {}),
    });
  else {
    if (opts.trace) process.stdout.write(`${formatTrace(result.trace)}\n`);
    process.stdout.write(`run ${result.runId}: ${result.status}\n`);
    for (const [k, v] of Object.entries(result.outputs))
      process.stdout.write(`${k}: ${typeof v === "string" ? v : JSON.stringify(v, null, 2)}\n`);
    if (result.error)
      process.stderr.write(
        `error ${result.error.code}${result.error.nodeId ? ` at node ${result.error.nodeId}` : ""}: ${result.error.message}\n`,
      );
    for (const p of result.paused ?? []) process.stdout.write(`${describeForm(result.runId, p.form)}\n`);
  }
  process.exitCode = result.status === "failed" ? EXIT.invalid : EXIT.ok;
}

/** Input the workflow cannot take is a usage error (exit 2), reported before anything runs. */
function refuseBadInput(check: () => void): void {
  try {
    check();
  } catch (e) {
    if (e instanceof InputError) {
      const how = e.code === "input.missing" ? `: pass it with --input ${String(e.details.input)}=VALUE` : "";
      throw new CliError(`usage.${e.code.replace(/^input\./, "")}_input`, `${e.message}${how}`);
    }
    throw e;
  }
}

/** Queued runs are stored by the worker; the log learns where they came from once they end. */
async function tagRun(db: string, runId: string, source: "queue"): Promise<void> {
  const stores = await openStores(db);
  try {
    await stores.runLog.tag(runId, { source });
  } finally {
    await stores.close();
  }
}

export function registerRunCommands(program: Command): void {
  program
    .command("run")
    .description("run a workflow on Weft's engine")
    .argument("<file>")
    .option("-i, --input <key=value>", "an input value (repeatable)", collect, [] as string[])
    .option("--input-file <key=path>", "a file input (repeatable)", collect, [] as string[])
    .option("--file <path>", "a file for sys.files (repeatable)", collect, [] as string[])
    .option("--query <text>", "sys.query for advanced-chat apps")
    .option(
      "--allow-warnings",
      "run despite findings Dify would still run (a reference missing on some path …), reported as warnings",
    )
    .option("--json", "print the result as JSON")
    .option("--trace", "print the trace of every node attempt")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--concurrency <n>", "nodes of this run executing at once (default 64)")
    .option("--queue", "enqueue on Redis for weft workers instead of running here")
    .option("--redis <url>", "Redis for --queue (default WEFT_REDIS_URL or redis://127.0.0.1:6379)")
    .action(async (file, opts) => {
      const cfg = loadWeftConfig(opts.config);
      const { workflow } = await readWorkflow(file);
      // Only the node types this workflow uses are loaded (start-up); analysing against them is the same.
      const nodeTypes = await nodeTypesFor(workflow);
      const gate = runGate(analyse(workflow, nodeTypes).diagnostics, { allowWarnings: !!opts.allowWarnings });
      if (gate.blocking.length > 0) {
        for (const d of gate.blocking) process.stderr.write(`${formatDiagnostic(d)}\n`);
        const hint = opts.allowWarnings ? "" : " (or pass --allow-warnings to run what Dify would run)";
        throw new CliError(
          "run.invalid_workflow",
          `the workflow has errors; fix them (see \`weft validate\`) before running${hint}`,
          EXIT.invalid,
        );
      }
      for (const d of gate.downgraded) process.stderr.write(`${formatDiagnostic(d)}\n`);
      const pairs = opts.input.map((raw) => splitPair(raw, "--input"));
      const filePairs = opts.inputFile.map((raw) => splitPair(raw, "--input-file"));
      refuseBadInput(() =>
        checkInputNames(
          workflow,
          [...pairs, ...filePairs].map(([k]) => k),
        ),
      );
      const services = await buildServices(cfg, { configPath: opts.config, oneShot: true });
      let stores: Stores | undefined;
      try {
        await runHere(services);
      } finally {
        await services.close();
        await stores?.close();
      }
      async function runHere(services: BuiltServices) {
        const inputs: Record<string, unknown> = {};
        for (const [k, v] of pairs) inputs[k] = v;
        const putFile = async (path: string, flag: string) => {
          if (!existsSync(path))
            throw new CliError(`usage.${flag}`, `${flag === "file" ? "--file" : "input file"} ${path} does not exist`);
          return services.files!.put(new Uint8Array(readFileSync(path)), {
            filename: basename(path),
            mimeType: mimeOf(path),
          });
        };
        for (const [k, path] of filePairs) {
          const file = await putFile(path, "input_file");
          inputs[k] = inputs[k] === undefined ? file : ([] as unknown[]).concat(inputs[k], file);
        }
        const sysFiles = [];
        for (const path of opts.file) sysFiles.push(await putFile(path, "file"));
        // Before any run exists: a run that can only fail at its start node is never stored.
        refuseBadInput(() => checkRunInputs(workflow, inputs));
        if (opts.queue) {
          const { enqueueRun } = await import("../../queue/index.js");
          if (sysFiles.length > 0 || opts.query)
            throw new CliError(
              "usage.queue_sys",
              "--file and --query are not carried by --queue yet; run without --queue",
            );
          const runId = newId();
          const enqueue = (trace?: TraceCarrier) =>
            enqueueRun(workflow, inputs, {
              db: opts.db ?? cfg.db,
              redisUrl: opts.redis,
              onEvent: progress(!!opts.json),
              runId,
              trace,
            });
          // Tracing on: a producer span here, and the worker's run span its child in the same trace.
          const tracing = await openTracing(cfg, "cli");
          const result = await (tracing
            ? tracing
                .produce(`queue ${workflow.name}`, queueSpanAttributes(runId), enqueue, { newRun: runId })
                .finally(() => tracing.shutdown())
            : enqueue());
          await tagRun(opts.db ?? cfg.db, result.runId, "queue");
          return finish(result, opts);
        }
        stores = await openStores(opts.db ?? cfg.db);
        attachKnowledge(services, stores.knowledge, cfg.knowledge);
        for (const d of await servingDiagnostics(workflow, services)) process.stderr.write(`${formatDiagnostic(d)}\n`);
        const tracing = await openTracing(cfg, "cli");
        try {
          const runServices = { ...services, humanInput: new StoredHumanInput(stores.forms) };
          const result = await runWorkflow(workflow, {
            inputs,
            nodeTypes,
            // A human-input node pauses the run durably: its form is stored beside the run.
            services: tracing ? tracing.wrap(runServices) : runServices,
            observer: tracing?.observer,
            store: stores!.runs,
            concurrency: opts.concurrency === undefined ? undefined : positiveInt(opts.concurrency, "--concurrency"),
            sys: { ...(opts.query ? { query: opts.query } : {}), ...(sysFiles.length > 0 ? { files: sysFiles } : {}) },
            onEvent: progress(!!opts.json),
          });
          await stores.runLog.tag(result.runId, { source: "cli" });
          finish(result, opts);
        } finally {
          await tracing?.shutdown();
        }
      }
    });

  program
    .command("worker")
    .description("process queued runs from Redis (any number of workers may share Redis and the run store)")
    .option("--redis <url>", "Redis (default WEFT_REDIS_URL or redis://127.0.0.1:6379)")
    .option(
      "--db <spec>",
      "run store shared by the workers: postgres://USER@HOST:PORT/DB (workers on any machine) or a SQLite file on this machine (default from config: weft.db)",
    )
    .option("--config <path>", "weft.config.json")
    .option("--concurrency <n>", "runs processed at once", "4")
    .option("--lock-ms <n>", "lock lifetime; a dead worker's run is taken over after it", "30000")
    .option(
      "--grace-ms <n>",
      "on SIGTERM/SIGINT, how long running nodes may take to finish before the worker exits",
      "10000",
    )
    .option("--name <name>", "worker name in results")
    .option("--no-schedules", "do not fire the schedule triggers of published apps from this worker")
    .option("--metrics-port <n>", "serve GET /metrics (Prometheus) on this port (0 = any free port; off by default)")
    .option(
      "--metrics-host <addr>",
      "address of the metrics listener; beyond loopback scrapers need WEFT_METRICS_TOKEN",
      "127.0.0.1",
    )
    .option("--log-format <f>", "event log on stderr: json (one object a line) or pretty (default on a terminal)")
    .action(async (opts) => {
      const cfg = loadWeftConfig(opts.config);
      // A worker's logger, metrics and their HTTP listener load here, not with `weft run` (its start-up cost).
      const { startWorker } = await import("../../queue/index.js");
      const { openProcessObservability } = await import("../observability.js");
      const { startMetricsServer } = await import("../../server/metrics-route.js");
      const name = opts.name ?? `worker-${process.pid}`;
      const obs = await openProcessObservability(cfg, { name, source: "queue", logFormat: opts.logFormat });
      const metricsPort = opts.metricsPort === undefined ? undefined : portNumber(opts.metricsPort, "--metrics-port");
      const services = await buildServices(cfg, { configPath: opts.config });
      const observed = obs.wrap(services);
      const metricsServer =
        metricsPort === undefined
          ? undefined
          : await startMetricsServer({
              metrics: obs.metrics,
              port: metricsPort,
              host: opts.metricsHost,
              token: process.env.WEFT_METRICS_TOKEN || undefined,
              log: obs.log,
            }).catch((e: unknown) => {
              if (e instanceof WeftError) throw new CliError(e.code, e.message);
              throw e;
            });
      const w = await startWorker({
        redisUrl: opts.redis,
        db: opts.db ?? cfg.db,
        concurrency: Number(opts.concurrency),
        lockDurationMs: Number(opts.lockMs),
        name,
        services: observed,
        // Loaded only for a job that carries a SOP-Bench tool environment (`weft eval sopbench --queue`).
        servicesFor: async (job) =>
          job.toolEnv ? (await import("../../eval/sopbench/job-services.js")).sopbenchJobServices(job) : {},
        observer: obs.observer,
        continueTrace: obs.tracing?.continueTrace,
        onJobTaken: (j) => obs.metrics.queueWait.observe({ job: j.name }, j.waitedMs / 1000),
        secretKeyFile: cfg.secretKeyFile,
        // Built on the observed services, so its embedding calls are traced as the worker's other model calls.
        knowledge: (store) => {
          attachKnowledge(observed, store, cfg.knowledge);
          return observed.knowledge!;
        },
        // One line per run taken, so operators (and the takeover test) can see who runs what.
        onEvent: (e) => {
          if (e.type === "run_started") process.stderr.write(`run ${e.runId} ${e.resumed ? "resumed" : "started"}\n`);
        },
      });
      let stopping = false;
      let schedules: { stop(): Promise<void> } | undefined;
      const stop = async (signal: string) => {
        // A second signal means "now": the runs are durable up to their last commit either way.
        if (stopping) process.exit(130);
        stopping = true;
        process.stderr.write(`worker ${name} stopping (${signal}): handing running runs back\n`);
        // First: from here on this worker claims no tick; the schedulers of the other processes fire them.
        if (schedules) {
          await schedules.stop();
          process.stderr.write(`worker ${name}: schedules stopped\n`);
        }
        const r = await w.stop({ graceMs: Number(opts.graceMs) });
        await metricsServer?.close();
        await obs.shutdown();
        process.stderr.write(
          `worker ${name} stopped: ${r.running - r.abandoned} of ${r.running} runs handed back` +
            (r.abandoned ? `, ${r.abandoned} left to be taken over when their lock expires` : "") +
            (r.closedCleanly ? "" : "; Redis or the database did not answer, exited without them") +
            "\n",
        );
        process.exit(0);
      };
      // Before waiting for Redis: a worker that never reached it stops as cleanly as one that did.
      process.on("SIGTERM", () => void stop("SIGTERM"));
      process.on("SIGINT", () => void stop("SIGINT"));
      await w.worker.waitUntilReady();
      if (opts.schedules !== false && !stopping) {
        const started = await startQueuedSchedules(opts.db ?? cfg.db, opts.redis, obs.tracing);
        // A signal that came while the scheduler started: it claims nothing either.
        if (stopping) await started.stop();
        else schedules = started;
      }
      // The metrics URL first: whoever waits for "ready" can scrape at once.
      if (metricsServer) process.stderr.write(`worker ${name} metrics on ${metricsServer.url}\n`);
      obs.log.info(
        {
          event: "worker.start",
          worker: name,
          tracing: obs.tracing !== undefined,
          metrics: metricsServer?.url ?? null,
        },
        `worker ${name} started`,
      );
      process.stderr.write(`worker ${name} ready\n`);
      await new Promise(() => {});
    });

  program
    .command("runs")
    .description("list recorded runs")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--app <id>", "only this app's runs")
    .option("--status <s>", `only these statuses, comma-separated: ${RUN_LOG_STATUSES.join(", ")}`)
    .option("--source <s>", `only runs started from, comma-separated: ${RUN_SOURCES.join(", ")}`)
    // Not --version: the program's own --version would answer first.
    .option("--app-version <n>", "only runs of this app version")
    .option("--since <duration>", "only runs started within it (30m, 24h, 7d) or since an ISO time")
    .option("--until <time>", "only runs started before it (a duration back, or an ISO time)")
    .option("--search <text>", "only runs whose inputs or outputs contain every word")
    .option("--limit <n>", "how many (at most 100)", "20")
    .option("--cursor <c>", "the next page: the cursor the previous page printed")
    .option("--json", "print as JSON: {runs, next}, each run with its token usage (and cost, with a price table)")
    .option("--usage", "print the token usage and cost summed over every run the filters match (e.g. --app ID)")
    .action(async (opts) => {
      const cfg = loadWeftConfig(opts.config);
      const { appVersion, usage: summed, ...rest } = opts;
      const q = parseRunQuery({ ...rest, ...(appVersion !== undefined ? { version: appVersion } : {}) });
      const stores = await openStores(opts.db ?? cfg.db);
      const prices = cfg.observability?.prices;
      if (summed) {
        const { limit: _l, cursor: _c, ...filters } = q;
        const total = await summedUsage(stores, filters, prices).finally(() => stores.close());
        if (opts.json) return printJson(total);
        return void process.stdout.write(usageLines(total));
      }
      const page = await stores.runLog.query(q).catch(async (e) => {
        await stores.close();
        throw e;
      });
      // Forms of paused runs and every run's usage, read before the database closes (whatever fails).
      const [waiting, usage] = await Promise.all([
        Promise.all(
          page.runs.map(async (r) =>
            r.status === "paused" ? (await stores.forms.runForms(r.id)).filter((f) => f.status === "waiting") : [],
          ),
        ),
        Promise.all(page.runs.map((r) => storedRunUsage(stores.runs, r.id, prices))),
      ]).finally(() => stores.close());
      const runs = page.runs.map((r, i) => ({
        ...r,
        createdAt: new Date(r.createdAt).toISOString(),
        updatedAt: new Date(r.updatedAt).toISOString(),
        ...(runLink(r) ? { link: runLink(r) } : {}),
        ...(waiting[i]!.length ? { waiting: waiting[i]!.map(pendingForm) } : {}),
        ...(usage[i] ? { usage: usage[i] } : {}),
      }));
      if (opts.json) return printJson({ runs, next: page.next ?? null });
      for (const r of runs) {
        const from = [r.source, r.version !== undefined ? `v${r.version}${r.draft ? " draft" : ""}` : ""]
          .filter(Boolean)
          .join(" ");
        process.stdout.write(
          `${r.id}  ${r.status.padEnd(17)} ${r.createdAt}  ${r.workflowName}${from ? `  [${from}]` : ""}${r.error ? `  (${r.error.message})` : ""}\n`,
        );
        for (const f of r.waiting ?? []) process.stdout.write(`${describeForm(r.id, f).replace(/^/gm, "    ")}\n`);
      }
      if (runs.length === 0) process.stdout.write("no runs recorded\n");
      if (page.next) process.stdout.write(`more: --cursor ${page.next}\n`);
    });

  program
    .command("trace")
    .description("print the trace of a run: every node attempt's inputs, outputs, port, error, timing")
    .argument("<runId>")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--json", "print as JSON")
    .action(async (runId, opts) => {
      const cfg = loadWeftConfig(opts.config);
      const stores = await openStores(opts.db ?? cfg.db);
      const [run, trace] = await Promise.all([stores.runs.getRun(runId), stores.runs.attempts(runId)]).finally(() =>
        stores.close(),
      );
      if (!run) throw new CliError("run.not_found", `no run with id ${runId}`, EXIT.invalid);
      if (opts.json)
        return printJson({ run: { id: run.id, status: run.status, outputs: run.outputs, error: run.error }, trace });
      process.stdout.write(`run ${run.id}: ${run.status}\n${formatTrace(trace)}\n`);
    });
}

/** Workers fire schedules too (queued, so any worker runs them); the store's claims keep one run per tick. */
async function startQueuedSchedules(
  db: string,
  redisUrl: string | undefined,
  tracing?: Pick<RunTracing, "produce">,
): Promise<{ stop(): Promise<void> }> {
  const { createScheduleRunner } = await import("../../triggers/schedule/runner.js");
  const { queuedStarter } = await import("../../triggers/schedule/queued.js");
  const stores = await openStores(db);
  const scheduler = createScheduleRunner({ stores, starter: queuedStarter(redisUrl, tracing) });
  scheduler.start();
  return {
    async stop() {
      await scheduler.stop();
      await stores.close();
    },
  };
}

/** `weft runs --usage`: the sum, then one line per model. */
function usageLines(u: SummedUsage): string {
  const cost = (c: number | undefined) => (c === undefined ? "" : `  ${c.toFixed(6)} ${u.currency ?? ""}`);
  const lines = [
    `${u.runs} runs${u.truncated ? " (the newest only: more matched)" : ""}: ${u.inputTokens} input + ${u.outputTokens} output = ${u.totalTokens} tokens${cost(u.cost)}`,
    ...Object.entries(u.byModel).map(([m, t]) => `  ${m}: ${t.inputTokens} + ${t.outputTokens}${cost(t.cost)}`),
    ...(u.unpriced?.length
      ? [`  no price for: ${u.unpriced.join(", ")} (observability.prices in weft.config.json)`]
      : []),
  ];
  return `${lines.join("\n")}\n`;
}
