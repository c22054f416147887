/**
 * `Promise.all(items.map(fn))` with at most `limit` calls of `fn` running at once; results come back
 * in input order. `onDone` runs as each item finishes (progress bars). The one bounded-concurrency
 * loop of the project: episodes, τ² trials, SFT tokenization, evaluation probes and demo seeds use it.
 *
 * When a call fails, no further item starts, and the returned promise rejects with the first error
 * only once the calls already running have settled: a caller that cleans up after the rejection (stops
 * a worker, reports) never races work of its own that is still going (a demo seed still training).
 */
export async function mapConcurrent<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
  onDone?: (result: R, index: number, done: number) => void,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  let done = 0;
  let failure: { error: unknown } | undefined;
  const worker = async (): Promise<void> => {
    while (next < items.length && !failure) {
      const i = next++;
      try {
        results[i] = await fn(items[i]!, i);
        done++;
        onDone?.(results[i]!, i, done);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure) throw failure.error;
  return results;
}
