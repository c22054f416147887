/**
 * Exponential backoff with jitter: attempt k (0-based) waits a random time in
 * [d/2, d] with d = min(maxDelayMs, baseDelayMs·2^k). The random half spreads retries from many
 * concurrent callers so that they do not hit a recovering server in lockstep.
 */
export function backoffDelay(
  attempt: number,
  baseDelayMs: number,
  maxDelayMs: number,
  random: () => number = Math.random,
): number {
  const d = Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
  return d / 2 + (random() * d) / 2;
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts first. */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal?.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
