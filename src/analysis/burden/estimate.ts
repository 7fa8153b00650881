import { elementType, isArrayType, type ValueType } from "../../ir/types.js";

/**
 * Rough token sizes of values by declared type, for context and compaction pressure. They are
 * orders of magnitude, not measurements: a string is a paragraph, an object a small JSON record, a
 * file a few pages of extracted text, `any` is costed as a string. Arrays hold ARRAY_ITEMS items.
 */
export const TOKEN_ESTIMATES: Readonly<Record<"string" | "number" | "boolean" | "object" | "file" | "any", number>> = {
  string: 256,
  number: 4,
  boolean: 1,
  object: 512,
  file: 2000,
  any: 256,
};
export const ARRAY_ITEMS = 8;
/** Characters per token for text the node itself carries (prompts, templates). */
export const CHARS_PER_TOKEN = 4;

export function estimateTokens(t: ValueType | undefined): number {
  if (!t || t === "any") return TOKEN_ESTIMATES.any;
  if (isArrayType(t)) return ARRAY_ITEMS * estimateTokens(elementType(t));
  return TOKEN_ESTIMATES[t as keyof typeof TOKEN_ESTIMATES] ?? TOKEN_ESTIMATES.any;
}

export function textTokens(text: string): number {
  return Math.ceil(text.length / CHARS_PER_TOKEN);
}
