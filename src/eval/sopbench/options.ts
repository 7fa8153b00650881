import type { ValidationMode } from "./schema.js";

/** How a SopBench tool environment behaves (clock, randomness, validation, upstream quirks). */
export interface EnvOptions {
  corpusDir?: string;
  /** Defaults to PINNED_NOW. */
  now?: () => Date;
  /** Seed of the RNG used for generated ids (warehouse report ids). Default 42. */
  seed?: number;
  /** Argument validation against toolspecs (see schema.ts). Default "structural". */
  validation?: ValidationMode;
  /** Let the validator coerce "5" → 5, "true" → true before matching. Default false. */
  coerceArgs?: boolean;
  /**
   * warehouse: "csv" answers barcode/damage from the row's barcode_match/package_condition (default);
   * "original" reproduces upstream's PO-number parity mocks (issue #3).
   */
  warehouseMode?: "csv" | "original";
  /**
   * Relative tolerance when a float argument is matched against a float column (video_annotation's
   * predicted_iou chain). Default 0: exact, as upstream, so a rounded value breaks the chain.
   */
  floatTolerance?: number;
  /** Shuffle specs() with the seed, as upstream video_annotation did. Default false (file order). */
  shuffleToolSpecs?: boolean;
}
