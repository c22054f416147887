import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OpenAIChatModel } from "../../../src/engines/openai-chat-model.js";
import { startMockOpenAIServer, type MockOpenAIServer } from "../../../src/testing/index.js";
import { actionMatches, checkActions } from "../../../src/bench/tau2/evaluate-action.js";
import { checkCommunicate } from "../../../src/bench/tau2/evaluate-communicate.js";
import { evaluateEpisode } from "../../../src/bench/tau2/evaluate.js";
import { pythonEqual } from "../../../src/bench/tau2/python-equal.js";
import type { Tau2Message } from "../../../src/bench/tau2/types.js";
import { fakeDomain, fakeTask } from "./fake-domain.js";

const call = (name: string, args: Record<string, unknown>, id = "c1") => ({ id, name, arguments: args });

describe("COMMUNICATE", () => {
  const traj: Tau2Message[] = [
    { role: "user", content: "what is my refund? 1250" },
    { role: "assistant", content: "Your refund is $1,250.50 and the ID is ABC." },
    { role: "assistant", content: "", toolCalls: [call("get_value", { key: "Zebra" })] },
    { role: "tool", content: "zebra", toolCallId: "c1" },
  ];
  it("finds info case-insensitively in agent text with commas removed", () => {
    const checks = checkCommunicate(traj, ["1250.50", "abc", "zebra", "1,250.50"]);
    expect(checks.map((c) => c.met)).toEqual([true, true, false, false]);
  });
  it("ignores the user's and the tools' text", () => {
    expect(checkCommunicate(traj, ["what is my refund"])[0]!.met).toBe(false);
  });
});

describe("ACTION", () => {
  it("matches by name and compare_args, Python equality", () => {
    const gold = { name: "set_value", arguments: { key: "a", value: 2 } };
    expect(actionMatches(gold, call("set_value", { key: "a", value: 2.0 }))).toBe(true);
    expect(actionMatches(gold, call("set_value", { value: 2, key: "a" }))).toBe(true);
    expect(actionMatches(gold, call("set_value", { key: "a", value: 3 }))).toBe(false);
    expect(actionMatches(gold, call("get_value", { key: "a", value: 2 }))).toBe(false);
    // compare_args restricts the comparison; [] matches on the name alone
    expect(actionMatches({ ...gold, compare_args: ["key"] }, call("set_value", { key: "a", value: 9 }))).toBe(
      true,
    );
    expect(actionMatches({ ...gold, compare_args: [] }, call("set_value", {}))).toBe(true);
    // null compare_args: the predicted call's keys are compared (upstream quirk)
    expect(actionMatches(gold, call("set_value", { key: "a" }))).toBe(true);
    expect(actionMatches(gold, call("set_value", { key: "a", extra: 1 }))).toBe(false);
  });
  it("checks every gold action against every call of the conversation", () => {
    const traj: Tau2Message[] = [
      { role: "assistant", content: "", toolCalls: [call("set_value", { key: "a", value: 2 })] },
      { role: "user", content: "", toolCalls: [call("get_value", { key: "b" }, "u1")] },
    ];
    const checks = checkActions(traj, [
      { name: "set_value", arguments: { key: "a", value: 2 } },
      { name: "get_value", arguments: { key: "b" } },
      { name: "set_value", arguments: { key: "c", value: 1 } },
    ]);
    expect(checks.map((c) => c.met)).toEqual([true, true, false]);
  });
  it("pythonEqual treats True as 1 and lists in order", () => {
    expect(pythonEqual(true, 1)).toBe(true);
    expect(pythonEqual([1, 2], [2, 1])).toBe(false);
    expect(pythonEqual({ a: [1, { b: "x" }] }, { a: [1.0, { b: "x" }] })).toBe(true);
    expect(pythonEqual("1", 1)).toBe(false);
  });
});

describe("evaluateEpisode", () => {
  const write = { name: "set_value", arguments: { key: "a", value: 5 } };
  const agentDid = (args: Record<string, unknown>): Tau2Message[] => [
    { role: "assistant", content: "Hi! How can I help you today?" },
    { role: "user", content: "set a to 5" },
    { role: "assistant", content: "", toolCalls: [call("set_value", args)] },
    { role: "tool", content: "set a", toolCallId: "c1", requestor: "assistant" },
    { role: "assistant", content: "Done, a is now 5." },
    { role: "user", content: "###STOP###" },
  ];

  it("scores DB by replaying the conversation against the gold actions", async () => {
    const task = fakeTask("t1", { actions: [write], reward_basis: ["DB"] });
    const domain = fakeDomain([task]);
    const ok = await evaluateEpisode({
      domain,
      task,
      messages: agentDid({ key: "a", value: 5 }),
      initialCount: 0,
      termination: "user_stop",
    });
    expect(ok.reward).toBe(1);
    expect(ok.components.DB?.status).toBe("passed");
    const bad = await evaluateEpisode({
      domain,
      task,
      messages: agentDid({ key: "a", value: 6 }),
      initialCount: 0,
      termination: "user_stop",
    });
    expect(bad.reward).toBe(0);
    expect(bad.components.DB?.status).toBe("failed");
    // ACTION is reported as a diagnostic but is not in the basis
    expect(bad.components.ACTION).toMatchObject({ status: "failed", inBasis: false });
  });

  it("skips calls the loop rejected when replaying", async () => {
    const task = fakeTask("t1", { actions: [], reward_basis: ["DB"] });
    const domain = fakeDomain([task]);
    const messages: Tau2Message[] = [
      { role: "assistant", content: "", toolCalls: [call("set_value", { key: "a", value: 7 })] },
      {
        role: "tool",
        content: "Error: invalid",
        toolCallId: "c1",
        requestor: "assistant",
        error: true,
        rejected: true,
      },
      { role: "assistant", content: "sorry" },
    ];
    const r = await evaluateEpisode({ domain, task, messages, initialCount: 0, termination: "agent_stop" });
    expect(r.reward).toBe(1);
    expect(domain.envs.every((e) => e.calls.length === 0)).toBe(true);
  });

  it("multiplies the basis components and scores premature ends 0", async () => {
    const task = fakeTask("t1", {
      actions: [write],
      communicate_info: ["is now 5"],
      reward_basis: ["DB", "COMMUNICATE", "ACTION"],
    });
    const domain = fakeDomain([task]);
    const good = await evaluateEpisode({
      domain,
      task,
      messages: agentDid({ key: "a", value: 5 }),
      initialCount: 0,
      termination: "user_stop",
    });
    expect(good.reward).toBe(1);
    const quiet = agentDid({ key: "a", value: 5 }).filter((m) => !m.content.includes("is now"));
    const r = await evaluateEpisode({
      domain,
      task,
      messages: quiet,
      initialCount: 0,
      termination: "user_stop",
    });
    expect(r.components.COMMUNICATE?.status).toBe("failed");
    expect(r.reward).toBe(0);
    const cut = await evaluateEpisode({
      domain,
      task,
      messages: agentDid({ key: "a", value: 5 }),
      initialCount: 0,
      termination: "max_steps",
    });
    expect(cut.reward).toBe(0);
    expect(cut.note).toMatch(/max_steps/);
  });

  it("uses upstream's default basis DB+COMMUNICATE when the task has none", async () => {
    const task = fakeTask("t1", { actions: [write] });
    const r = await evaluateEpisode({
      domain: fakeDomain([task]),
      task,
      messages: agentDid({ key: "a", value: 5 }),
      initialCount: 0,
      termination: "user_stop",
    });
    expect(r.rewardBasis).toEqual(["DB", "COMMUNICATE"]);
    expect(r.reward).toBe(1);
  });

  describe("NL_ASSERTION", () => {
    let server: MockOpenAIServer;
    let verdict: "pass" | "fail" | "502" | "garbage" = "pass";
    beforeAll(async () => {
      server = await startMockOpenAIServer({
        handler: (body) => {
          if (verdict === "502") return { status: 502, message: "bad gateway" };
          if (verdict === "garbage") return "I think it went fine.";
          const met = verdict === "pass";
          const prompt = body.messages[1]?.content ?? "";
          expect(prompt).toContain("expectedOutcomes:\n['The agent set a to 5']");
          expect(prompt).toContain("assistant: Done, a is now 5.");
          return (
            "```json\n" +
            JSON.stringify({
              results: [{ expectedOutcome: "The agent set a to 5", reasoning: "r", metExpectation: met }],
            }) +
            "\n```"
          );
        },
      });
    });
    afterAll(() => server.close());
    const task = fakeTask("t1", {
      actions: [write],
      nl_assertions: ["The agent set a to 5"],
      reward_basis: ["DB", "NL_ASSERTION"],
    });
    const judge = () => new OpenAIChatModel({ baseURL: server.baseURL, model: "judge", maxRetries: 0 });
    const run = (withJudge: boolean) =>
      evaluateEpisode({
        domain: fakeDomain([task]),
        task,
        messages: agentDid({ key: "a", value: 5 }),
        initialCount: 0,
        termination: "user_stop",
        ...(withJudge ? { judge: judge() } : {}),
      });

    it("is skipped without a judge and left out of the product", async () => {
      const r = await run(false);
      expect(r.components.NL_ASSERTION).toMatchObject({ status: "skipped", reward: null });
      expect(r.reward).toBe(1);
    });
    it("passes and fails with the judge's verdict", async () => {
      verdict = "pass";
      const p = await run(true);
      expect(p.components.NL_ASSERTION?.status).toBe("passed");
      expect(p.reward).toBe(1);
      verdict = "fail";
      const f = await run(true);
      expect(f.components.NL_ASSERTION?.status).toBe("failed");
      expect(f.reward).toBe(0);
    });
    it("reports a failing judge (502, unreadable reply) as error, never passed", async () => {
      verdict = "502";
      const e = await run(true);
      expect(e.components.NL_ASSERTION?.status).toBe("error");
      expect(e.components.NL_ASSERTION?.note).toMatch(/502/);
      expect(e.reward).toBe(0);
      verdict = "garbage";
      const g = await run(true);
      expect(g.components.NL_ASSERTION).toMatchObject({ status: "error" });
      expect(g.components.NL_ASSERTION?.note).toMatch(/JUDGE_ERROR/);
    });
  });
});
