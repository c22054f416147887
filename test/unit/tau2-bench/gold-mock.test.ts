import { describe, it } from "vitest";
import { checkGoldAndNoop } from "./gold-check.js";

// mock and telecom are fast; retail and airline (large DBs) run in test/e2e/tau2-bench.
describe("oracle policies on tau2:mock and tau2:telecom", () => {
  it("mock: gold scores 1 on every task with a gold path; noop fails every writing task", async () => {
    await checkGoldAndNoop("mock");
  });
  it("telecom: gold (agent and user) scores 1 on all 114 tasks; noop fails every task", async () => {
    await checkGoldAndNoop("telecom");
  }, 120_000);
});
