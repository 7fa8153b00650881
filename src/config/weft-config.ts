/**
 * The one schema of weft.config.json. Each section's schema lives with the code it configures (llm/, tools/,
 * knowledge/); this file puts them together, so a typo anywhere in the file is one error naming its path.
 */
import { z } from "zod";
import { DEFAULT_KNOWLEDGE_CONFIG, KnowledgeConfigSchema } from "../knowledge/config.js";
import { llmConfigSchema } from "../llm/config.js";
import { ObservabilityConfigSchema } from "../observability/config.js";
import { AuthConfigSchema } from "../server/auth/oidc/config.js";
import { EMPTY_TOOLS_CONFIG, ToolsConfigSchema } from "../tools/configured/config.js";
import { DEFAULT_EXTRACT_LIMITS, ExtractLimitsSchema } from "../tools/extract/limits.js";

export const WeftConfigSchema = z
  .object({
    llm: llmConfigSchema.optional(),
    /** `allowPrivate` is the owner's explicit permission to reach loopback/private hosts. */
    http: z
      .object({ allowPrivate: z.boolean().default(false), allowHosts: z.array(z.string()).default([]) })
      .default({ allowPrivate: false, allowHosts: [] }),
    files: z.object({ dir: z.string().default(".weft/files") }).default({ dir: ".weft/files" }),
    db: z.string().default("weft.db"),
    /** The secret key file (default: WEFT_SECRET_KEY_FILE, else next to a SQLite db, else ~/.weft/weft-secret.key). */
    secretKeyFile: z.string().optional(),
    tools: ToolsConfigSchema.default(EMPTY_TOOLS_CONFIG),
    /** Traces over OTLP (off by default; the standard OTEL_* variables override it). */
    observability: ObservabilityConfigSchema.optional(),
    knowledge: KnowledgeConfigSchema.default(DEFAULT_KNOWLEDGE_CONFIG),
    /** Bounds on document extraction (document-extractor nodes, knowledge uploads): sizes, depth, time, heap. */
    documents: ExtractLimitsSchema.default(DEFAULT_EXTRACT_LIMITS),
    /** Run-log retention: runs older than `days`, or beyond each app's newest `perApp`, are pruned by the server. */
    /** Sign-in: `auth.oidc` is the OpenID Connect provider (src/server/auth/oidc/config.ts). */
    auth: AuthConfigSchema.optional(),
    runs: z
      .object({
        retention: z
          .object({ days: z.number().int().positive().optional(), perApp: z.number().int().positive().optional() })
          .strict()
          .default({}),
      })
      .strict()
      .default({ retention: {} }),
  })
  .loose();
export type WeftConfig = z.output<typeof WeftConfigSchema> & {
  /** The directory relative paths in the file (tool specs, workflow files) are read from. */
  baseDir?: string;
};
