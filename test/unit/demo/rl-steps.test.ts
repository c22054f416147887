import { describe, expect, it } from "vitest";
import { FULL_PLAN, QUICK_PLAN, withRlSteps } from "../../../src/demo/layout.js";

// `envace demo --rl-steps N`: every RL arm trains N steps; the success curve keeps its number of points.
describe("withRlSteps", () => {
  it("sets the steps and scales the curve's spacing with them", () => {
    const p = withRlSteps(FULL_PLAN, 60);
    expect(p.rl.steps).toBe(60);
    expect(p.rl.curveEvery).toBe(15); // 20 steps, a point every 5 → 60 steps, every 15
    expect(withRlSteps(FULL_PLAN, 40).rl.curveEvery).toBe(10);
    expect(withRlSteps(FULL_PLAN, 20).rl).toEqual(FULL_PLAN.rl);
  });

  it("keeps a point at least every step, and everything else of the plan", () => {
    expect(withRlSteps(FULL_PLAN, 1).rl.curveEvery).toBe(1);
    expect(withRlSteps(QUICK_PLAN, 3).rl.curveEvery).toBe(3);
    const p = withRlSteps(QUICK_PLAN, 7);
    expect({ ...p, rl: undefined }).toEqual({ ...QUICK_PLAN, rl: undefined });
    expect({ ...p.rl, steps: 0, curveEvery: 0 }).toEqual({ ...QUICK_PLAN.rl, steps: 0, curveEvery: 0 });
  });
});
