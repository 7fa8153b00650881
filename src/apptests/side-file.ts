/**
 * The side file that travels next to an app's Dify YAML (`app.yml` → `app.tests.yml`): its cases and its test
 * settings. File inputs are carried inside it (base64), since the file store they came from does not travel;
 * importing puts them into the importing side's file store. Reading it is strict: anything that is not a test
 * file, or a case with a wrong field, is refused naming the case and field.
 */
import { parse, stringify } from "yaml";
import { z } from "zod";
import { isFileValue } from "../eval/metrics/resolve.js";
import type { FileService, FileValue } from "../ir/services.js";
import type { AppTestSettings, TestCaseRecord } from "../store/app-tests.js";
import { type NewCase, parseCase } from "./case.js";
import { AppTestError } from "./errors.js";

export const SIDE_FILE_VERSION = 1;

/** `my-app.yml` → `my-app.tests.yml`. */
export function sideFilePath(difyPath: string): string {
  return difyPath.replace(/(\.ya?ml|\.json)?$/i, ".tests.yml");
}

interface EmbeddedFile {
  weft_file: { filename: string; mime_type: string; data: string };
}

const embeddedSchema = z
  .object({
    weft_file: z.object({ filename: z.string().min(1), mime_type: z.string().min(1), data: z.string() }).strict(),
  })
  .strict();

const settingsSchema = z
  .object({
    require_pass: z.boolean(),
    k: z.number().int().min(1).max(100).default(1),
    min_pass_hat_k: z.number().min(0).max(1).default(1),
  })
  .strict();

const fileSchema = z
  .object({
    weft_tests: z.literal(SIDE_FILE_VERSION),
    app: z.string().optional(),
    settings: settingsSchema.optional(),
    cases: z.array(z.unknown()),
  })
  .strict();

async function mapFiles(v: unknown, f: (x: unknown) => Promise<unknown | undefined>): Promise<unknown> {
  const mapped = await f(v);
  if (mapped !== undefined) return mapped;
  if (Array.isArray(v)) return Promise.all(v.map((x) => mapFiles(x, f)));
  return v;
}

async function embedInputs(inputs: Record<string, unknown>, files: FileService): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(inputs))
    out[k] = await mapFiles(v, async (x) => {
      if (!isFileValue(x)) return undefined;
      const fv = x as FileValue;
      const bytes = await files.get(fv);
      return {
        weft_file: { filename: fv.filename, mime_type: fv.mime_type, data: Buffer.from(bytes).toString("base64") },
      };
    });
  return out;
}

async function restoreInputs(inputs: Record<string, unknown>, files: FileService): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(inputs))
    out[k] = await mapFiles(v, async (x) => {
      const e = embeddedSchema.safeParse(x);
      if (!e.success) return undefined;
      const f = (e.data as EmbeddedFile).weft_file;
      return files.put(new Uint8Array(Buffer.from(f.data, "base64")), { filename: f.filename, mimeType: f.mime_type });
    });
  return out;
}

export async function exportSideFile(
  appName: string,
  cases: TestCaseRecord[],
  settings: AppTestSettings | undefined,
  files: FileService,
): Promise<string> {
  const out = [];
  for (const c of cases)
    out.push({
      id: c.id,
      name: c.name,
      inputs: await embedInputs(c.inputs, files),
      ...(c.sys ? { sys: await embedInputs(c.sys, files) } : {}),
      expect: c.expect,
      ...(c.judge ? { judge: c.judge } : {}),
    });
  const doc = {
    weft_tests: SIDE_FILE_VERSION,
    app: appName,
    ...(settings
      ? { settings: { require_pass: settings.requirePass, k: settings.k, min_pass_hat_k: settings.minPassHatK } }
      : {}),
    cases: out,
  };
  return stringify(doc, { lineWidth: 0 });
}

export interface ReadSideFile {
  cases: NewCase[];
  settings?: { requirePass: boolean; k: number; minPassHatK: number };
}

export async function readSideFile(text: string, where: string, files: FileService): Promise<ReadSideFile> {
  let raw: unknown;
  try {
    raw = parse(text);
  } catch (e) {
    throw new AppTestError("tests.invalid_file", `${where} is not YAML: ${(e as Error).message}`, { file: where });
  }
  const doc = fileSchema.safeParse(raw);
  if (!doc.success) {
    const i = doc.error.issues[0]!;
    throw new AppTestError(
      "tests.invalid_file",
      `${where} is not a Weft test file (weft_tests: ${SIDE_FILE_VERSION}, cases: [...]): ${i.path.join(".") || "(top)"}: ${i.message}`,
      { file: where, field: i.path.join("."), reason: i.message },
    );
  }
  const cases: NewCase[] = [];
  for (const [i, rawCase] of doc.data.cases.entries()) {
    const label = `#${i + 1} of ${where}`;
    const c = parseCase(rawCase, label);
    cases.push({
      ...c,
      inputs: await restoreInputs(c.inputs, files),
      ...(c.sys ? { sys: await restoreInputs(c.sys, files) } : {}),
    });
  }
  const s = doc.data.settings;
  return { cases, ...(s ? { settings: { requirePass: s.require_pass, k: s.k, minPassHatK: s.min_pass_hat_k } } : {}) };
}
