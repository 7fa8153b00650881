/** Small descriptive statistics shared by the metrics. */

export function mean(xs: readonly number[]): number {
  return xs.length === 0 ? 0 : xs.reduce((s, x) => s + x, 0) / xs.length;
}

/** Sample standard deviation (n − 1); 0 for fewer than two values. */
export function sampleStd(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
}

/**
 * Coefficient of variation = sample std / mean, e.g. of ES across repeated runs of one workflow.
 * null when the mean is 0 (undefined ratio) or there are no values; 0 for a single run.
 */
export function coefficientOfVariation(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const m = mean(xs);
  if (m === 0) return null;
  return sampleStd(xs) / Math.abs(m);
}
