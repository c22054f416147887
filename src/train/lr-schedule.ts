/**
 * Learning rate at optimizer step `step` (1-based) of `totalSteps`: linear warm-up over
 * `warmupSteps` (reaching `peak` at the last warm-up step), then constant or cosine decay to
 * `minLr` at `totalSteps`.
 */
export function learningRate(
  step: number,
  opts: {
    peak: number;
    totalSteps: number;
    warmupSteps: number;
    schedule: "constant" | "cosine";
    minLr?: number;
  },
): number {
  const { peak, totalSteps, warmupSteps, schedule } = opts;
  const minLr = opts.minLr ?? 0;
  if (warmupSteps > 0 && step <= warmupSteps) return (peak * step) / warmupSteps;
  if (schedule === "constant") return peak;
  const decaySteps = totalSteps - warmupSteps;
  if (decaySteps <= 0) return peak;
  // progress 0 at the first step after warm-up, 1 at the last step
  const progress = decaySteps === 1 ? 0 : (step - warmupSteps - 1) / (decaySteps - 1);
  return minLr + 0.5 * (peak - minLr) * (1 + Math.cos(Math.PI * Math.min(1, Math.max(0, progress))));
}
