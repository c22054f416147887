/** n choose k (exact for the small numbers of trials benchmarks use). */
function choose(n: number, k: number): number {
  if (k < 0 || k > n) return 0;
  let r = 1;
  for (let i = 1; i <= k; i++) r = (r * (n - k + i)) / i;
  return Math.round(r);
}

/** Upstream `is_successful`: a reward of 1 within 1e-6. */
export function isSuccessful(reward: number): boolean {
  return reward >= 1 - 1e-6 && reward <= 1 + 1e-6;
}

/**
 * pass^k (τ-bench, arXiv 2406.12045): the probability that k trials drawn without replacement
 * from a task's n trials all succeed, C(c, k) / C(n, k), averaged over tasks. `successesByTask`
 * holds, per task, one boolean per trial. Throws when a task has fewer than k trials.
 */
export function passHatK(successesByTask: ReadonlyArray<readonly boolean[]>, k: number): number {
  if (successesByTask.length === 0) return 0;
  let sum = 0;
  for (const trials of successesByTask) {
    const n = trials.length;
    if (n < k) throw new RangeError(`pass^${k} needs at least ${k} trials per task, got ${n}`);
    const c = trials.filter(Boolean).length;
    sum += choose(c, k) / choose(n, k);
  }
  return sum / successesByTask.length;
}

/** pass^1 … pass^maxK keyed by k. */
export function passHatKs(
  successesByTask: ReadonlyArray<readonly boolean[]>,
  maxK: number,
): Record<number, number> {
  const out: Record<number, number> = {};
  for (let k = 1; k <= maxK; k++) out[k] = passHatK(successesByTask, k);
  return out;
}
