import { describe, expect, it } from "vitest";
import { buildRehearsalPrompt, readRehearsalCall } from "../../../src/rollout/rehearsal-prompt.js";
import { orderTask } from "./fixtures.js";

/** Stand-in rehearsers (the gold oracles) read the call to answer back out of our own prompts, every variant. */
describe("readRehearsalCall", () => {
  const call = { id: "c", name: "get_order", arguments: { order_id: "A1", items: [1, { k: "v" }] } };
  const input = { task: orderTask(), history: [], rawActMessage: "", call };
  it.each([
    ["full", { variant: "full" as const }],
    ["full with /think", { variant: "full" as const, think: true }],
    ["compact", { variant: "compact" as const }],
  ])("reads the %s prompt", (_, opts) => {
    const user = buildRehearsalPrompt({ ...input, ...opts })[1]!.content;
    expect(readRehearsalCall(user)).toEqual({ name: "get_order", arguments: call.arguments });
  });
  it("is undefined for anything else", () => {
    expect(readRehearsalCall("hello")).toBeUndefined();
  });
});
