import { describe, it } from "vitest";
import { checkGoldAndNoop } from "./gold-check.js";

// mock is fast; retail and airline (large DBs) run in test/e2e/tau2-bench.
describe("oracle policies on tau2:mock", () => {
  it("gold scores 1 on every task (but two that need the user to act); noop fails every writing task", async () => {
    await checkGoldAndNoop("mock");
  });
});
