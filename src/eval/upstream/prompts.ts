/**
 * Chat2Workflow's two judge system prompts, read from the user's checkout of zjunlp/Chat2Workflow
 * (they are upstream's text; Weft ships none of it). Upstream reads each file and sends `.strip()` of it
 * as the system message (resolve_stage.py:282-283, pass_stage.py:507-508). The sha256 of each file at
 * commit 3e799a9044cd98a6ca0261b3b6a19546ce5aedcb is pinned so a run can say whether its judge prompt is
 * byte-for-byte upstream's.
 */
import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { WeftError } from "../../ir/errors.js";
import { pyStrip } from "./pyrepr.js";

export class UpstreamPromptError extends WeftError {}

export const UPSTREAM_COMMIT = "3e799a9044cd98a6ca0261b3b6a19546ce5aedcb";

export const UPSTREAM_PROMPTS = {
  resolve: {
    file: "prompts/evaluation_resolve_system.txt",
    sha256: "318bd2667200e3f869d52ef1a0232436bf0a857fa68a70960402e9676e3b2820",
  },
  pass: {
    file: "prompts/evaluation_pass_system.txt",
    sha256: "385385edab6cf8b02cfda285b49570e47d7ed3af71e50ca0d361cea9e810616a",
  },
} as const;

export interface UpstreamPrompt {
  path: string;
  /** The system message: the file's text with Python `.strip()`. */
  system: string;
  sha256: string;
  /** The file is byte-for-byte the one at UPSTREAM_COMMIT. */
  matchesUpstream: boolean;
}

/** `dir` is the Chat2Workflow checkout (holding prompts/). */
export function loadUpstreamPrompt(dir: string, which: keyof typeof UPSTREAM_PROMPTS): UpstreamPrompt {
  const spec = UPSTREAM_PROMPTS[which];
  const path = join(dir, spec.file);
  if (!existsSync(path))
    throw new UpstreamPromptError(
      "eval.upstream_prompt_missing",
      `--fidelity upstream judges with Chat2Workflow's own ${which} prompt, and ${path} does not exist: point --upstream-dir at a checkout of zjunlp/Chat2Workflow (commit ${UPSTREAM_COMMIT.slice(0, 7)}), or use --fidelity weft`,
      { path, field: "upstream-dir" },
    );
  const bytes = readFileSync(path);
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  return { path, system: pyStrip(bytes.toString("utf8")), sha256, matchesUpstream: sha256 === spec.sha256 };
}
