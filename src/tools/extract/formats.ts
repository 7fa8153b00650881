/**
 * Extensions the built-in extractors read. Kept apart from the extractors themselves so the host
 * can dispatch without loading them: they are loaded, and run, in the extraction threads.
 */
export const BUILTIN_EXTENSIONS = [
  ".txt",
  ".text",
  ".md",
  ".markdown",
  ".mdx",
  ".xml",
  ".html",
  ".htm",
  ".csv",
  ".json",
  ".yaml",
  ".yml",
  ".properties",
  ".vtt",
  ".pdf",
  ".docx",
  ".xlsx",
  ".pptx",
  ".eml",
] as const;
export type BuiltinExtension = (typeof BUILTIN_EXTENSIONS)[number];

export function isBuiltinExtension(ext: string): ext is BuiltinExtension {
  return (BUILTIN_EXTENSIONS as readonly string[]).includes(ext);
}
