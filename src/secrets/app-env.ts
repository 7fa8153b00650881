import type { RunEnv } from "../engine/run.js";
import type { Workflow, WorkflowVariable } from "../ir/workflow.js";
import type { AppStore } from "../store/apps.js";
import type { EnvRecord, EnvStore, EnvType } from "../store/env.js";
import { open, type SecretKey, seal } from "./crypto.js";
import { EnvError, SecretKeyError } from "./errors.js";
import type { KeyProvider } from "./key.js";

/** One variable as the API and CLI show it: a secret's value is always null, `set` says whether one is stored. */
export interface EnvVariable {
  name: string;
  type: EnvType;
  value: string | number | null;
  set: boolean;
}

const IDENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const TYPES: readonly EnvType[] = ["string", "number", "secret"];

/** A declaration's type: Dify's value_type `secret` and `number`; anything else reads as a string. */
export const declaredType = (v: WorkflowVariable): EnvType =>
  v.value_type === "secret" ? "secret" : v.value_type === "number" ? "number" : "string";

export function checkName(name: string): void {
  if (!IDENT.test(name))
    throw new EnvError(
      "env.bad_name",
      `"${name}" is not a variable name: use letters, digits and _, not starting with a digit`,
      { name },
    );
}

/** The value to store for a type, or env.bad_value naming why not. */
export function checkValue(name: string, type: unknown, value: unknown): { type: EnvType; value: string | number } {
  if (typeof type !== "string" || !TYPES.includes(type as EnvType))
    throw new EnvError(
      "env.bad_type",
      `the type of ${name} must be "string", "number" or "secret", not ${JSON.stringify(type)}`,
      {
        name,
      },
    );
  const t = type as EnvType;
  if (t === "number") {
    const n =
      typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : Number.NaN;
    if (!Number.isFinite(n))
      throw new EnvError("env.bad_value", `${name} is a number variable; ${JSON.stringify(value)} is not a number`, {
        name,
      });
    return { type: t, value: n };
  }
  if (typeof value !== "string")
    throw new EnvError(
      "env.bad_value",
      `the value of ${name} must be a string, not ${value === null ? "null" : typeof value}`,
      {
        name,
      },
    );
  if (t === "secret" && value === "")
    throw new EnvError("env.bad_value", `the secret ${name} is empty; delete it instead to unset it`, { name });
  return { type: t, value };
}

/**
 * An app's environment variables: declarations come from its workflow (draft), values from the env store.
 * Secrets are sealed here with the key from `keys` (AES-256-GCM) and opened only to run.
 */
export class AppEnv {
  constructor(
    private readonly store: EnvStore,
    private readonly apps: AppStore,
    readonly keys: KeyProvider,
  ) {}

  private async requireApp(appId: string): Promise<void> {
    if (!(await this.apps.getApp(appId))) throw new EnvError("app.not_found", `no app with id ${appId}`, { appId });
  }

  private async declarations(appId: string): Promise<WorkflowVariable[]> {
    const wf = (await this.apps.draft(appId))?.workflow ?? (await this.apps.current(appId))?.workflow;
    return wf?.environment_variables ?? [];
  }

  private show(decl: WorkflowVariable | undefined, rec: EnvRecord | undefined, name: string): EnvVariable {
    const type = rec?.type ?? (decl ? declaredType(decl) : "string");
    if (type === "secret") return { name, type, value: null, set: rec?.sealed !== undefined };
    const declared = decl?.value === undefined || decl.value === "" ? undefined : decl.value;
    const value = rec?.value ?? declared;
    return {
      name,
      type,
      value:
        typeof value === "string" || typeof value === "number" ? value : value === undefined ? null : String(value),
      set: value !== undefined,
    };
  }

  /** Declared and stored variables by name. */
  async list(appId: string): Promise<EnvVariable[]> {
    await this.requireApp(appId);
    const decls = new Map((await this.declarations(appId)).map((d) => [d.name, d]));
    const stored = new Map((await this.store.list(appId)).map((r) => [r.name, r]));
    const names = [...new Set([...decls.keys(), ...stored.keys()])].sort();
    return names.map((n) => this.show(decls.get(n), stored.get(n), n));
  }

  async set(appId: string, name: string, type: unknown, value: unknown): Promise<EnvVariable> {
    checkName(name);
    const v = checkValue(name, type, value);
    await this.requireApp(appId);
    const base = { appId, name, type: v.type, updatedAt: Date.now() };
    const rec: EnvRecord =
      v.type === "secret"
        ? { ...base, sealed: seal(this.keys.get(), appId, name, String(v.value)) }
        : { ...base, value: v.value };
    await this.store.put(rec);
    const decl = (await this.declarations(appId)).find((d) => d.name === name);
    return this.show(decl, rec, name);
  }

  async delete(appId: string, name: string): Promise<void> {
    checkName(name);
    await this.requireApp(appId);
    if (!(await this.store.delete(appId, name)))
      throw new EnvError("env.not_found", `app ${appId} has no stored value for ${name}`, { appId, name });
  }

  deleteApp(appId: string): Promise<void> {
    return this.store.deleteApp(appId);
  }

  /** Declared secrets of `wf` with no stored value: what an import must tell the user to set. */
  async unsetSecrets(appId: string, wf: Workflow): Promise<string[]> {
    const stored = new Set((await this.store.list(appId)).filter((r) => r.sealed).map((r) => r.name));
    return wf.environment_variables
      .filter((d) => declaredType(d) === "secret" && !stored.has(d.name))
      .map((d) => d.name);
  }

  /** The values a run of the app starts with (secrets opened) and the clear texts to redact. */
  async forRun(appId: string): Promise<RunEnv> {
    const values: Record<string, unknown> = {};
    const secrets: string[] = [];
    for (const r of await this.store.list(appId)) {
      if (r.sealed) {
        const clear = open(this.requireKey(), appId, r.name, r.sealed);
        values[r.name] = clear;
        secrets.push(clear);
      } else if (r.value !== undefined) values[r.name] = r.value;
    }
    return { values, secrets };
  }

  private requireKey(): SecretKey {
    const key = this.keys.existing();
    if (!key)
      throw new SecretKeyError(
        "secret.key_missing",
        `secrets are stored but there is no key: the key file ${this.keys.file} is missing and WEFT_SECRET_KEY is not set`,
        { source: this.keys.source },
      );
    return key;
  }

  /** Every stored secret opens with the configured key (a server refuses to start otherwise); resolves to how many. */
  async verify(): Promise<number> {
    const all = await this.store.secrets();
    if (all.length === 0) return 0;
    const key = this.requireKey();
    for (const r of all) open(key, r.appId, r.name, r.sealed!);
    return all.length;
  }

  /** Re-seal every secret with `next` (all or none); the caller then makes `next` the configured key. */
  async rotate(next: SecretKey): Promise<number> {
    const all = await this.store.secrets();
    const key = all.length > 0 ? this.requireKey() : undefined;
    const resealed = all.map((r) => ({
      ...r,
      sealed: seal(next, r.appId, r.name, open(key!, r.appId, r.name, r.sealed!)),
    }));
    await this.store.reseal(resealed);
    return resealed.length;
  }
}

/**
 * A workflow about to be stored, with every declared secret's value taken out (blank, as Dify exports them) and
 * handed back to be sealed in the env store: a secret's clear text never lands in a version or a draft.
 */
export function takeSecretValues(wf: Workflow): {
  workflow: Workflow;
  secrets: Array<{ name: string; value: string }>;
} {
  const secrets: Array<{ name: string; value: string }> = [];
  const environment_variables = wf.environment_variables.map((v) => {
    if (declaredType(v) !== "secret") return v;
    if (typeof v.value === "string" && v.value !== "") secrets.push({ name: v.name, value: v.value });
    return { ...v, value: "" };
  });
  return { workflow: { ...wf, environment_variables }, secrets };
}

/**
 * The workflow as exported: non-secret declarations carry the app's stored values (a Dify import of the file
 * gets them back), secrets are blank.
 */
export async function withStoredValues(env: EnvStore, appId: string, wf: Workflow): Promise<Workflow> {
  const stored = new Map((await env.list(appId)).map((r) => [r.name, r]));
  const environment_variables = wf.environment_variables.map((v) => {
    if (declaredType(v) === "secret") return { ...v, value: "" };
    const r = stored.get(v.name);
    return r && r.value !== undefined && r.type !== "secret" ? { ...v, value: r.value } : v;
  });
  return { ...wf, environment_variables };
}
