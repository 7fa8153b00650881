/** Saves the editor's pending draft edits (set by src/draft/autosave.ts; the store cannot import it). */
let flusher: () => Promise<unknown> = async () => {};

export const setDraftFlusher = (f: () => Promise<unknown>) => {
  flusher = f;
};

export const flushDraft = () => flusher();
