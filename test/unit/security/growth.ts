import { performance } from "node:perf_hooks";

/**
 * How much slower `parse` gets when its worst-case input grows `factor` times: the ratio of the
 * fastest of `runs` timings at size n·factor to the fastest at size n, measured in the same run
 * (no wall-clock limit, so a slow machine does not fail it). Linear code gives ≈ factor; quadratic
 * code gives ≈ factor². Nine runs a size: with five, a machine busy with other work gave the JSON
 * depth scan a ratio of 26.6 (bound 24) once; the fastest of more runs is the parser's own time.
 */
export function growthRatio(
  parse: (input: string) => unknown,
  worstCase: (n: number) => string,
  n: number,
  factor = 8,
  runs = 9,
): number {
  const small = worstCase(n);
  const large = worstCase(n * factor);
  const fastest = (input: string) => {
    let best = Infinity;
    for (let i = 0; i < runs; i++) {
      const t0 = performance.now();
      parse(input);
      best = Math.min(best, performance.now() - t0);
    }
    return best;
  };
  fastest(small); // warm-up: the JIT compiles the parser before anything is timed
  return fastest(large) / Math.max(fastest(small), 1e-3);
}
