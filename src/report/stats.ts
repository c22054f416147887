/** Small statistics for result tables: means with 95% confidence half-widths. */

export interface MeanCI {
  mean: number;
  /** Half-width of the 95% interval: the interval is mean ± ci95. */
  ci95: number;
  n: number;
}

// Two-sided 97.5% quantiles of Student's t for small samples (df 1..30); 1.96 beyond.
const T975 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131,
  2.12, 2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

export function tQuantile975(df: number): number {
  return df >= 1 && df <= T975.length ? T975[df - 1]! : 1.96;
}

/**
 * Mean and t-interval over independent values (tasks, or seeds' means). One value has no spread:
 * its interval is reported as 0 width only when n = 1 would be misleading, so we return NaN there.
 */
export function meanCI(values: readonly number[]): MeanCI {
  const n = values.length;
  if (n === 0) return { mean: NaN, ci95: NaN, n };
  const mean = values.reduce((a, b) => a + b, 0) / n;
  if (n === 1) return { mean, ci95: NaN, n };
  const variance = values.reduce((a, v) => a + (v - mean) ** 2, 0) / (n - 1);
  return { mean, ci95: tQuantile975(n - 1) * Math.sqrt(variance / n), n };
}

/** Formats a MeanCI as a percentage "81.0 ± 5.4" (or "81.0" without an interval). */
export function formatPercent(m: MeanCI | undefined): string {
  if (!m || Number.isNaN(m.mean)) return "–";
  const base = (100 * m.mean).toFixed(1);
  return Number.isNaN(m.ci95) ? base : `${base} ± ${(100 * m.ci95).toFixed(1)}`;
}
