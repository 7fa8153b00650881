import type { Context } from "hono";
import type { AppRecord } from "../../store/apps.js";
import { readJson } from "../context.js";
import { badParam, DifyError } from "./errors.js";

/** What every /v1 handler knows once the app key is checked: the one app the key is bound to. */
export type V1Env = { Variables: { app: AppRecord } };
export type V1Context = Context<V1Env>;

/** The JSON body as Dify reads it: malformed or non-object bodies are `invalid_param` (400), never a 500. */
export async function readBody(c: V1Context): Promise<Record<string, unknown>> {
  try {
    return await readJson(c);
  } catch (e) {
    throw badParam((e as Error).message);
  }
}

/** Dify's end-user id (`user`): required in the body or query of every call that acts for one. */
export function userOf(v: unknown): string {
  if (typeof v !== "string" || v.trim() === "") throw badParam("Arg user must be provided.");
  if (v.length > 255) throw badParam("Arg user must be at most 255 characters.");
  return v;
}

/** The end user Dify acts for when an endpoint that allows it is called without `user`. */
export const DEFAULT_END_USER = "DEFAULT-USER";

/** `user` where Dify makes it optional (file upload): a missing or empty one is Dify's default end user. */
export function optionalUserOf(v: unknown): string {
  return v === undefined || v === null || v === "" ? DEFAULT_END_USER : userOf(v);
}

export function responseMode(v: unknown): "blocking" | "streaming" {
  if (v === undefined || v === null || v === "blocking") return "blocking";
  if (v === "streaming") return "streaming";
  throw badParam(`response_mode must be "blocking" or "streaming", got ${JSON.stringify(v)}`);
}

export function objectArg(v: unknown, name: string): Record<string, unknown> {
  if (v === undefined || v === null) return {};
  if (typeof v !== "object" || Array.isArray(v)) throw badParam(`${name} must be an object`);
  return v as Record<string, unknown>;
}

/** Dify refuses an app key used on another mode's route with these codes. */
export function requireMode(c: V1Context, mode: "workflow" | "advanced-chat"): AppRecord {
  const app = c.get("app");
  if (app.mode === mode) return app;
  const code = mode === "workflow" ? "not_workflow_app" : "not_chat_app";
  throw new DifyError(400, code, "Please check if your app mode matches the right API route.");
}

/** Query-string limits (`limit` 1–100, default 20), as Dify's list endpoints parse them. */
export function limitArg(raw: string | undefined): number {
  if (raw === undefined || raw === "") return 20;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 100) throw badParam(`limit must be an integer from 1 to 100, got "${raw}"`);
  return n;
}
