import type { z } from "zod";
import type { EditEnv, EditGraph } from "./graph.js";

/** One edit kind: its schema, what it does to a graph (throwing EditError), and its one-line description. */
export interface EditKind<S extends z.ZodObject> {
  schema: S;
  apply(g: EditGraph, e: z.infer<S>, env: EditEnv): void;
  describe(e: z.input<S>): string;
}

export const editKind = <S extends z.ZodObject>(k: EditKind<S>): EditKind<S> => k;
