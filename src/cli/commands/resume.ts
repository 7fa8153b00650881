import { existsSync, readFileSync } from "node:fs";
import { basename } from "node:path";
import type { Command } from "@commander-js/extra-typings";
import { FormError, StoredHumanInput, submitForm } from "../../engine/human-input.js";
import { resumeRun } from "../../engine/run.js";
import type { FileService } from "../../ir/services.js";
import { openTracing, type TraceCarrier } from "../../observability/index.js";
import { buildServices } from "../../runtime/services.js";
import type { FormRecord, FormStore } from "../../store/forms.js";
import { openStores } from "../../store/open.js";
import { mimeForExtension } from "../../tools/mime.js";
import { DB_HELP, loadWeftConfig } from "../config.js";
import { CliError, EXIT } from "../output.js";
import { collect, finish, progress, queueSpanAttributes, splitPair } from "./run.js";

interface AnswerOptions {
  input: string[];
  inputFile: string[];
  action?: string;
  form?: string;
}

/** The waiting form an answer is for: named by --form (form id, node id or key), or the run's only one. */
async function chooseForm(forms: FormStore, runId: string, which: string | undefined): Promise<FormRecord> {
  const waiting = (await forms.runForms(runId)).filter((f) => f.status === "waiting");
  const list = waiting.map((f) => `${f.id} (node ${f.key}, "${f.nodeTitle}")`).join(", ");
  if (which) {
    const hit = waiting.find((f) => f.id === which || f.key === which || f.nodeId === which);
    if (!hit)
      throw new CliError(
        "resume.no_such_form",
        `run ${runId} has no waiting form "${which}"; waiting: ${list || "none"}`,
      );
    return hit;
  }
  if (waiting.length === 0)
    throw new CliError(
      "resume.no_form",
      `run ${runId} waits for no answer; run \`weft resume ${runId}\` alone to continue it`,
    );
  if (waiting.length > 1)
    throw new CliError(
      "resume.which_form",
      `run ${runId} waits on ${waiting.length} forms; name one with --form: ${list}`,
    );
  return waiting[0]!;
}

async function answerValues(form: FormRecord, o: AnswerOptions, files: FileService | undefined) {
  const inputs: Record<string, unknown> = {};
  for (const raw of o.input) {
    const [k, v] = splitPair(raw, "--input");
    inputs[k] = v;
  }
  for (const raw of o.inputFile) {
    const [k, path] = splitPair(raw, "--input-file");
    if (!existsSync(path)) throw new CliError("usage.input_file", `input file ${path} does not exist`);
    if (!files) throw new CliError("usage.input_file", "no file store is configured for file answers");
    const file = await files.put(new Uint8Array(readFileSync(path)), {
      filename: basename(path),
      mimeType: mimeForExtension(basename(path).split(".").pop() ?? "") ?? "",
    });
    const value = { ...file, transfer_method: "local_file" as const };
    const isList = form.inputs.find((i) => i.output_variable_name === k)?.type === "file-list";
    inputs[k] = isList ? [...((inputs[k] as unknown[]) ?? []), value] : value;
  }
  const actions = form.actions.map((a) => a.id);
  const action = o.action ?? (actions.length === 1 ? actions[0] : undefined);
  if (!action)
    throw new CliError("resume.which_action", `form "${form.nodeTitle}" needs --action, one of: ${actions.join(", ")}`);
  return { action, inputs };
}

export function registerResumeCommand(program: Command): void {
  program
    .command("resume")
    .description(
      "continue an interrupted or paused run without re-running committed nodes; --input/--action answer its waiting form",
    )
    .argument("<runId>")
    .option("-i, --input <key=value>", "answer a form input (repeatable)", collect, [] as string[])
    .option("--input-file <key=path>", "answer a file input (repeatable)", collect, [] as string[])
    .option("--action <id>", "the form's action (button) chosen; may be left out when the form has one")
    .option("--form <id>", "which waiting form (form id, node id or key) when the run waits on several")
    .option("--db <spec>", DB_HELP)
    .option("--config <path>", "weft.config.json")
    .option("--queue", "let a `weft worker` continue the run instead of this process")
    .option("--redis <url>", "Redis for --queue (default WEFT_REDIS_URL or redis://127.0.0.1:6379)")
    .option("--json", "print the result as JSON")
    .option("--trace", "print the trace")
    .action(async (runId, opts) => {
      const cfg = loadWeftConfig(opts.config);
      const db = opts.db ?? cfg.db;
      const stores = await openStores(db);
      try {
        const run = await stores.runs.getRun(runId);
        if (!run) throw new CliError("run.not_found", `no run with id ${runId}`, EXIT.invalid);
        const services = await buildServices(cfg, {
          configPath: opts.config,
          knowledge: stores.knowledge,
          oneShot: true,
        });
        if (opts.input.length || opts.inputFile.length || opts.action || opts.form) {
          const form = await chooseForm(stores.forms, runId, opts.form);
          const answer = await answerValues(form, opts, services.files);
          await submitForm(stores.forms, form.id, { ...answer, user: "cli" }, Date.now()).catch((e: unknown) => {
            throw e instanceof FormError ? new CliError(e.code, e.message) : e;
          });
        }
        if (opts.queue) {
          const { enqueueResume } = await import("../../queue/index.js");
          const enqueue = (trace?: TraceCarrier) =>
            enqueueResume(runId, { db, redisUrl: opts.redis, onEvent: progress(!!opts.json), trace });
          const tracing = await openTracing(cfg, "cli");
          const result = await (tracing
            ? tracing.produce("queue resume", queueSpanAttributes(runId), enqueue).finally(() => tracing.shutdown())
            : enqueue());
          return finish(result, opts);
        }
        const humanInput = new StoredHumanInput(stores.forms);
        // Tracing on: the resumed segment is a trace of its own, linked to the run's first one.
        const tracing = await openTracing(cfg, "cli");
        try {
          const runServices = { ...services, humanInput };
          finish(
            await resumeRun(runId, {
              store: stores.runs,
              services: tracing ? tracing.wrap(runServices) : runServices,
              observer: tracing?.observer,
              onEvent: progress(!!opts.json),
            }),
            opts,
          );
        } finally {
          await tracing?.shutdown();
        }
      } finally {
        await stores.close();
      }
    });
}
