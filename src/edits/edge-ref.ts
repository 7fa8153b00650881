import { z } from "zod";

/** A port by name, or (compact form) by index. */
export const PortSchema = z.union([z.string(), z.number().int().min(0)]).default("source");

export const edgeFields = { source: z.string(), sourcePort: PortSchema, target: z.string() };
