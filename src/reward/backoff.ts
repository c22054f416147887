/**
 * Exponential backoff with jitter for judge retries: attempt k (0-based) waits a random time in
 * [d/2, d], d = min(maxDelayMs, baseDelayMs·2^k). (reward/ sits beside engines/, so it keeps its own.)
 */
export function backoffDelay(attempt: number, baseDelayMs: number, maxDelayMs: number): number {
  const d = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
  return d / 2 + (Math.random() * d) / 2;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
