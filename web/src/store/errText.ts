import { ApiFailure } from "../api";

/** An error as one line for the user: an API refusal with its code. */
export const errText = (e: unknown) =>
  e instanceof ApiFailure ? `${e.code}: ${e.message}` : e instanceof Error ? e.message : String(e);
