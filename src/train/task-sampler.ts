/**
 * Which tasks a step trains on. Tasks are visited epoch by epoch, each epoch in a seeded shuffled
 * order, so the choice for step k depends only on (seed, k): resuming at step k+1 needs no saved
 * random state and repeats or skips nothing.
 */
export function tasksForStep<T>(tasks: readonly T[], step: number, tasksPerStep: number, seed: number): T[] {
  if (tasks.length === 0) return [];
  const out: T[] = [];
  const start = (step - 1) * tasksPerStep; // position in the infinite epoch stream
  for (let pos = start; pos < start + tasksPerStep; pos++) {
    const epoch = Math.floor(pos / tasks.length);
    out.push(tasks[shuffledOrder(tasks.length, seed, epoch)[pos % tasks.length]!]!);
  }
  return out;
}

/** Position in the task stream after `step` steps (saved in checkpoints for inspection). */
export function samplingPosition(step: number, tasksPerStep: number): number {
  return step * tasksPerStep;
}

const orderCache = new Map<string, number[]>();

function shuffledOrder(n: number, seed: number, epoch: number): number[] {
  const key = `${n}:${seed}:${epoch}`;
  const hit = orderCache.get(key);
  if (hit) return hit;
  const rand = mulberry32(hashInts(seed, epoch));
  const order = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j]!, order[i]!];
  }
  if (orderCache.size > 64) orderCache.clear();
  orderCache.set(key, order);
  return order;
}

/** A small seeded PRNG (uniform in [0, 1)). */
export function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function hashInts(a: number, b: number): number {
  return (Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(b + 0x27d4eb2f, 0xc2b2ae35)) >>> 0;
}
