/**
 * `Promise.all(items.map(fn))` with at most `limit` calls of `fn` running at once; results come back
 * in input order. `onDone` runs as each item finishes (progress bars). The one bounded-concurrency
 * loop of the project: episodes, τ² trials, SFT tokenization and evaluation probes all use it.
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
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i]!, i);
      done++;
      onDone?.(results[i]!, i, done);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  return results;
}
