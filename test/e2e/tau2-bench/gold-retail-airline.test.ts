import { describe, it } from "vitest";
import { checkGoldAndNoop } from "../../unit/tau2-bench/gold-check.js";

describe("oracle policies on the real τ² domains (all tasks, all splits)", () => {
  it("tau2:retail: gold scores 1 on every task; noop fails every writing task", async () => {
    await checkGoldAndNoop("retail");
  });
  it("tau2:airline: gold scores 1 on every task; noop fails every writing task", async () => {
    await checkGoldAndNoop("airline");
  });
});
