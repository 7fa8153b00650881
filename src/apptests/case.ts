/**
 * The shape of a test case as users and files give it, checked with zod: a wrong field is refused naming the
 * case, the field's path and the reason (never fixed silently). Regular expressions and JSON Schemas are
 * compiled here too, so a case that is stored can always be checked.
 */
import { Ajv } from "ajv";
import { z } from "zod";
import type { OutputCheck, TestCaseSpec } from "../store/app-tests.js";
import { AppTestError } from "./errors.js";

const output = z.string().min(1, "names no output");

export const outputCheckSchema = z.discriminatedUnion("check", [
  z.object({ output, check: z.literal("exact"), value: z.unknown() }).strict(),
  z.object({ output, check: z.literal("contains"), value: z.string() }).strict(),
  z
    .object({
      output,
      check: z.literal("regex"),
      pattern: z.string(),
      flags: z
        .string()
        .regex(/^[dgimsuvy]*$/)
        .optional(),
    })
    .strict(),
  z.object({ output, check: z.literal("json_schema"), schema: z.record(z.string(), z.unknown()) }).strict(),
  z
    .object({ output, check: z.literal("number"), value: z.number().finite(), tolerance: z.number().finite().min(0) })
    .strict(),
  z
    .object({
      output,
      check: z.literal("file_type"),
      extension: z.string().min(1).optional(),
      mimeType: z.string().min(1).optional(),
      fileType: z.enum(["image", "document", "audio", "video", "custom"]).optional(),
    })
    .strict()
    .refine((c) => c.extension || c.mimeType || c.fileType, "needs extension, mimeType or fileType"),
]);

export const testCaseSpecSchema = z
  .object({
    inputs: z.record(z.string(), z.unknown()),
    sys: z.record(z.string(), z.unknown()).optional(),
    expect: z.array(outputCheckSchema).default([]),
    judge: z
      .object({ rubric: z.string().min(1), reference: z.string().optional() })
      .strict()
      .optional(),
  })
  .strict();

export const newCaseSchema = testCaseSpecSchema.extend({
  id: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, "letters, digits, _ . - only, at most 64")
    .optional(),
  name: z.string().min(1).max(200),
  sourceRunId: z.string().optional(),
});

export type NewCase = z.infer<typeof newCaseSchema>;

const ajv = new Ajv({ strict: false, allErrors: true });

/** Compile-time checks zod cannot make: a pattern that is a regular expression, a schema Ajv compiles. */
function checkCompiles(c: OutputCheck, i: number, caseName: string): void {
  const fail = (reason: string) => {
    throw new AppTestError("tests.invalid_case", `case "${caseName}": expect[${i}] (${c.output}): ${reason}`, {
      case: caseName,
      field: `expect.${i}`,
      reason,
    });
  };
  if (c.check === "regex") {
    try {
      new RegExp(c.pattern, c.flags);
    } catch (e) {
      fail(`pattern is not a regular expression: ${(e as Error).message}`);
    }
  }
  if (c.check === "json_schema") {
    try {
      ajv.compile(c.schema);
    } catch (e) {
      fail(`schema is not a JSON Schema Ajv compiles: ${(e as Error).message}`);
    }
  }
}

/** A case as given (API body, side file, CLI) → its validated form, or `tests.invalid_case` naming the field. */
export function parseCase(raw: unknown, label: string): NewCase {
  const r = newCaseSchema.safeParse(raw);
  if (!r.success) {
    const issue = r.error.issues[0]!;
    const field = issue.path.join(".") || "(case)";
    throw new AppTestError("tests.invalid_case", `case ${label}: ${field}: ${issue.message}`, {
      case: label,
      field,
      reason: issue.message,
    });
  }
  r.data.expect.forEach((c, i) => {
    checkCompiles(c as OutputCheck, i, r.data.name);
  });
  return r.data;
}

export type { TestCaseSpec };
