import { z } from "zod";

/**
 * A knowledge base's chunking settings, stored with it. Dify's chunking settings ("custom" segmentation): split at `separator`, and split again any piece longer
 * than `maxLength` characters (at paragraph, line, sentence, word boundaries) with `overlap` characters
 * shared between neighbours. Pre-processing as Dify's rules: collapse runs of spaces, drop URLs and emails.
 */
/** Each setting's bounds, without defaults: what a partial override (API body, CLI flag) may say. */
export const ChunkingOverrideSchema = z.strictObject({
  separator: z.string().min(1).optional(),
  maxLength: z.int().min(50).max(100_000).optional(),
  overlap: z.int().min(0).optional(),
  removeExtraSpaces: z.boolean().optional(),
  removeUrlsEmails: z.boolean().optional(),
  /**
   * Dify's chunk structure: `general` (text_model: the chunks are searched and returned) or `parent_child`
   * (hierarchical_model: small child chunks are searched, their parent chunk is returned as the context).
   */
  structure: z.enum(["general", "parent_child"]).optional(),
  /** Dify's `parent_mode`: parents are the separator/maxLength chunks (`paragraph`) or the whole document (`full-doc`). */
  parentMode: z.enum(["paragraph", "full-doc"]).optional(),
  /** Dify's `subchunk_segmentation`: how each parent is split into the child chunks that are searched. */
  subchunkSeparator: z.string().min(1).optional(),
  subchunkMaxLength: z.int().min(10).max(100_000).optional(),
  subchunkOverlap: z.int().min(0).optional(),
});
export const ChunkingSchema = z
  .strictObject({
    separator: ChunkingOverrideSchema.shape.separator.unwrap().default("\n\n"),
    maxLength: ChunkingOverrideSchema.shape.maxLength.unwrap().default(1024),
    overlap: ChunkingOverrideSchema.shape.overlap.unwrap().default(50),
    removeExtraSpaces: ChunkingOverrideSchema.shape.removeExtraSpaces.unwrap().default(true),
    removeUrlsEmails: ChunkingOverrideSchema.shape.removeUrlsEmails.unwrap().default(false),
    structure: ChunkingOverrideSchema.shape.structure.unwrap().default("general"),
    parentMode: ChunkingOverrideSchema.shape.parentMode.unwrap().default("paragraph"),
    // Dify's hierarchical defaults: children are lines of at most 512 characters.
    subchunkSeparator: ChunkingOverrideSchema.shape.subchunkSeparator.unwrap().default("\n"),
    subchunkMaxLength: ChunkingOverrideSchema.shape.subchunkMaxLength.unwrap().default(512),
    subchunkOverlap: ChunkingOverrideSchema.shape.subchunkOverlap.unwrap().default(0),
  })
  .refine((c) => c.overlap < c.maxLength, { message: "overlap must be smaller than maxLength", path: ["overlap"] })
  .refine((c) => c.subchunkOverlap < c.subchunkMaxLength, {
    message: "subchunkOverlap must be smaller than subchunkMaxLength",
    path: ["subchunkOverlap"],
  });
export type Chunking = z.output<typeof ChunkingSchema>;
/** Chunking as a store is given it: settings added later (parent-child) may be absent and read as their defaults. */
export type ChunkingInput = z.input<typeof ChunkingSchema>;
export const DEFAULT_CHUNKING: Chunking = ChunkingSchema.parse({});
