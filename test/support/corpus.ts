// Where tests find the shared corpus: one place (see sharedCorpusDir for the rule).
import { sharedCorpusDir } from "../../src/util/corpus.js";

/** A path inside the shared corpus, e.g. `corpusPath("dify-dsl", "x.yml")`. */
export const corpusPath = (...parts: string[]): string => sharedCorpusDir(...parts);
