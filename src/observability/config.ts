import { z } from "zod";
import { PriceTableSchema } from "./cost.js";

/**
 * weft.config.json `observability`: tracing is off unless enabled here or by the standard OTEL_* variables
 * (an OTLP endpoint set); `OTEL_*` values win over the file, as every OpenTelemetry SDK does.
 */
export const ObservabilityConfigSchema = z
  .object({
    tracing: z
      .object({
        enabled: z.boolean().default(false),
        /** OTLP/HTTP traces URL, e.g. http://127.0.0.1:4318/v1/traces. */
        endpoint: z.string().url().optional(),
        protocol: z.enum(["http/protobuf", "http/json"]).default("http/protobuf"),
        headers: z.record(z.string(), z.string()).default({}),
        serviceName: z.string().default("weft"),
        /** Record prompts and completions on model spans (GenAI semantic conventions); off by default. */
        captureContent: z.boolean().default(false),
      })
      .strict()
      .default({ enabled: false, protocol: "http/protobuf", headers: {}, serviceName: "weft", captureContent: false }),
    /** Prices per million tokens by model name: runs, metrics and spans then carry a cost beside the tokens. */
    prices: PriceTableSchema.optional(),
  })
  .strict();
export type ObservabilityConfig = z.output<typeof ObservabilityConfigSchema>;
export type TracingConfig = ObservabilityConfig["tracing"];

export class ObservabilityConfigError extends Error {
  readonly code = "observability.bad_config";
}

/** The tracing settings in force: the file's, overridden by the standard OTEL_* environment variables. */
export function tracingSettings(file: TracingConfig | undefined, env: NodeJS.ProcessEnv = process.env) {
  const base = ObservabilityConfigSchema.parse({ tracing: file ?? {} }).tracing;
  const envEndpoint = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    : env.OTEL_EXPORTER_OTLP_ENDPOINT
      ? `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/+$/, "")}/v1/traces`
      : undefined;
  const protocol = env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? base.protocol;
  if (protocol !== "http/protobuf" && protocol !== "http/json") {
    throw new ObservabilityConfigError(
      `OTEL_EXPORTER_OTLP_PROTOCOL "${protocol}" is not supported: Weft exports OTLP over HTTP, set "http/protobuf" or "http/json"`,
    );
  }
  const disabled = env.OTEL_SDK_DISABLED === "true" || env.OTEL_TRACES_EXPORTER === "none";
  const endpoint = envEndpoint ?? base.endpoint;
  const enabled = !disabled && (base.enabled || envEndpoint !== undefined);
  if (enabled && !endpoint) {
    throw new ObservabilityConfigError(
      "tracing is enabled but no OTLP endpoint is set: set OTEL_EXPORTER_OTLP_ENDPOINT or observability.tracing.endpoint",
    );
  }
  const capture = env.OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT;
  return {
    enabled,
    endpoint: endpoint ?? "",
    protocol: protocol as TracingConfig["protocol"],
    // Langfuse and hosted Phoenix take their key as a header: the standard variables, over the file's.
    // Read only when tracing is on: variables meant for another program never stop a command that exports nothing.
    headers: enabled
      ? {
          ...base.headers,
          ...otlpHeaders(env.OTEL_EXPORTER_OTLP_HEADERS, "OTEL_EXPORTER_OTLP_HEADERS"),
          ...otlpHeaders(env.OTEL_EXPORTER_OTLP_TRACES_HEADERS, "OTEL_EXPORTER_OTLP_TRACES_HEADERS"),
        }
      : base.headers,
    serviceName: env.OTEL_SERVICE_NAME ?? base.serviceName,
    /** OTEL_BSP_SCHEDULE_DELAY: how long spans wait to be exported in one batch (the SDK reads no variable itself). */
    scheduleDelayMs: enabled ? delayMs(env.OTEL_BSP_SCHEDULE_DELAY) : undefined,
    captureContent: capture !== undefined ? capture === "true" : base.captureContent,
  };
}
export type TracingSettings = ReturnType<typeof tracingSettings>;

function delayMs(raw: string | undefined): number | undefined {
  if (raw === undefined || raw.trim() === "") return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0)
    throw new ObservabilityConfigError(`OTEL_BSP_SCHEDULE_DELAY must be a whole number of milliseconds, got "${raw}"`);
  return n;
}

/**
 * OTEL_EXPORTER_OTLP_HEADERS as the OpenTelemetry spec has it: `key=value` pairs separated by commas, values
 * percent-decoded. A value may itself contain `=` (base64 padding of a Basic credential): only the first splits.
 */
function otlpHeaders(raw: string | undefined, variable: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of (raw ?? "").split(",")) {
    if (part.trim() === "") continue;
    const eq = part.indexOf("=");
    const key = eq > 0 ? part.slice(0, eq).trim() : "";
    if (!key)
      throw new ObservabilityConfigError(
        `${variable} has "${part.trim()}", not key=value; write e.g. ${variable}="Authorization=Basic <base64 of public:secret key>"`,
      );
    try {
      out[key] = decodeURIComponent(part.slice(eq + 1).trim());
    } catch {
      throw new ObservabilityConfigError(`${variable}: the value of "${key}" is not valid percent-encoding`);
    }
  }
  return out;
}
