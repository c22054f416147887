import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OpenAIChatModel } from "../../../src/engines/openai-chat-model.js";
import type { MockOpenAIServer, MockReply } from "../../../src/testing/index.js";
import { LLMAgent } from "../../../src/bench/tau2/llm-agent.js";
import { goldAgent, noopAgent, replayPair } from "../../../src/bench/tau2/oracle-agents.js";
import { runEpisode } from "../../../src/bench/tau2/run-episode.js";
import { runTau2 } from "../../../src/bench/tau2/run-tau2.js";
import { LLMUserSimulator, scriptedUser } from "../../../src/bench/tau2/user-simulator.js";
import type { Tau2Agent } from "../../../src/bench/tau2/agent.js";
import { fakeDomain, fakeTask } from "./fake-domain.js";
import { mockServersClosedAfterEach } from "../../mock-servers.js";

const start = mockServersClosedAfterEach();

const scripted = (replies: MockReply[]): Promise<MockOpenAIServer> =>
  start({ handler: (_b, { index }) => replies[Math.min(index, replies.length - 1)]! });
const modelOf = (s: MockOpenAIServer, name: string) =>
  new OpenAIChatModel({ baseURL: s.baseURL, model: name, maxRetries: 0 });

function guidelinesDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "tau2-guidelines-"));
  writeFileSync(
    join(dir, "simulation_guidelines.md"),
    "# User Simulation Guidelines\nBe a customer.<PERSONA_GUIDELINES>",
  );
  writeFileSync(join(dir, "simulation_guidelines_tools.md"), "# With tools");
  return dir;
}

const write = { name: "set_value", arguments: { key: "a", value: 5 } };
const task = fakeTask("t1", {
  actions: [write],
  communicate_info: ["a is 5"],
  reward_basis: ["DB", "COMMUNICATE"],
});

describe("τ² loop with an LLM agent and an LLM user simulator", () => {
  it("runs OpenAI tool_calls and <tool_call> text to a user stop, and scores it", async () => {
    const agentServer = await scripted([
      { content: null, toolCalls: [{ name: "get_value", arguments: { key: "a" } }] },
      '<think>set it</think><tool_call>{"name": "set_value", "arguments": {"key": "a", "value": 5}}</tool_call>',
      "All done: a is 5 now.",
    ]);
    const userServer = await scripted(["Please set a to 5.", "Thanks! ###STOP###"]);
    const domain = fakeDomain([task]);
    const ep = await runEpisode({
      domain,
      task,
      agent: new LLMAgent(modelOf(agentServer, "agent")),
      user: new LLMUserSimulator(modelOf(userServer, "user"), { guidelinesDir: guidelinesDir() }),
    });
    expect(ep.termination).toBe("user_stop");
    expect(ep.toolErrors).toBe(0);
    expect(ep.env.dumpDb()).toEqual({ a: 5 });
    expect(ep.messages.map((m) => m.role)).toEqual([
      "assistant",
      "user",
      "assistant",
      "tool",
      "assistant",
      "tool",
      "assistant",
      "user",
    ]);
    expect(ep.messages[3]!.content).toBe("1");

    // the agent saw the policy in its system prompt and the tools in OpenAI format
    const first = agentServer.requests[0]!.body;
    expect(first.messages[0]!.content).toContain("<policy>\nBe nice.\n</policy>");
    expect((first.tools as Array<{ function: { name: string } }>).map((t) => t.function.name)).toContain(
      "set_value",
    );
    // the user simulator saw the guidelines + scenario, and the agent's words as "user"
    const u = userServer.requests[1]!.body;
    expect(u.messages[0]!.content).toContain("Be a customer.\n\n<scenario>\nInstructions:\n\tDomain: fake");
    expect(u.messages.slice(1).map((m) => m.role)).toEqual(["user", "assistant", "user"]);
    expect(u.tools).toBeUndefined();

    const summary = await runTau2({
      bench: "fake",
      domain: fakeDomain([task]),
      agent: new LLMAgent(
        modelOf(
          await scripted([
            { content: null, toolCalls: [{ name: "set_value", arguments: { key: "a", value: 5 } }] },
            "a is 5.",
          ]),
          "agent",
        ),
      ),
      user: new LLMUserSimulator(modelOf(await scripted(["set a to 5", "###STOP###"]), "user"), {
        guidelinesDir: guidelinesDir(),
      }),
    });
    expect(summary.results[0]).toMatchObject({ reward: 1, termination: "user_stop" });
    expect(summary.pass_hat_k).toEqual({ 1: 1 });
  });

  it("answers invalid calls with an error result, leaves the DB unchanged and goes on", async () => {
    const agentServer = await scripted([
      { content: null, toolCalls: [{ name: "delete_everything", arguments: {} }] },
      { content: null, toolCalls: [{ name: "set_value", arguments: { key: "a", value: "five" } }] },
      { content: null, toolCalls: [{ name: "set_value", arguments: "{not json" }] },
      "<tool_call>{broken</tool_call>",
      "I could not do it.",
    ]);
    const domain = fakeDomain([task]);
    const ep = await runEpisode({
      domain,
      task,
      agent: new LLMAgent(modelOf(agentServer, "agent")),
      user: scriptedUser(),
    });
    expect(ep.termination).toBe("user_stop");
    const tools = ep.messages.filter((m) => m.role === "tool");
    expect(tools).toHaveLength(4);
    for (const t of tools) {
      expect(t.error).toBe(true);
      expect(t.content).toMatch(/^Error: /);
    }
    expect(tools[0]!.content).toMatch(/delete_everything/);
    expect(tools[1]!.content).toMatch(/value/);
    expect(tools[2]!.content).toMatch(/JSON object/);
    expect(tools[3]!.content).toMatch(/not valid JSON/);
    expect(ep.toolErrors).toBe(4);
    expect(ep.env.dumpDb()).toEqual({ a: 1 });
    expect((ep.env as unknown as { calls: unknown[] }).calls).toHaveLength(0);
    // the agent got each error back as the result of its call
    const fifth = agentServer.requests[4]!.body.messages;
    const toolMsgs = fifth.filter((m) => m.role === "tool");
    expect(toolMsgs).toHaveLength(4);
    expect(toolMsgs[0]!.tool_call_id).toBeTruthy();
  });

  it("stops on max errors, max steps, agent transfer, and agent ###STOP###", async () => {
    const bad = await scripted([{ content: null, toolCalls: [{ name: "nope", arguments: {} }] }]);
    const tooMany = await runEpisode({
      domain: fakeDomain([task]),
      task,
      agent: new LLMAgent(modelOf(bad, "a")),
      user: scriptedUser(),
      maxErrors: 3,
    });
    expect(tooMany.termination).toBe("too_many_errors");
    expect(tooMany.toolErrors).toBe(3);

    const chatty = await scripted([
      { content: null, toolCalls: [{ name: "get_value", arguments: { key: "a" } }] },
    ]);
    const long = await runEpisode({
      domain: fakeDomain([task]),
      task,
      agent: new LLMAgent(modelOf(chatty, "a")),
      user: scriptedUser(),
      maxSteps: 7,
    });
    expect(long.termination).toBe("max_steps");
    expect(long.steps).toBeGreaterThanOrEqual(7);

    // A transfer is no termination (upstream): the agent's next replies go on, the user stops.
    const transfer = await scripted([
      { content: null, toolCalls: [{ name: "transfer_to_human_agents", arguments: { summary: "x" } }] },
      "You are being transferred.",
    ]);
    const t = await runEpisode({
      domain: fakeDomain([task]),
      task,
      agent: new LLMAgent(modelOf(transfer, "a")),
      user: scriptedUser(),
    });
    expect(t.termination).toBe("user_stop");
    expect(t.transfers).toBe(1);
    expect(t.messages.at(-2)).toMatchObject({ role: "assistant", content: "You are being transferred." });

    const stop = await scripted(["Bye ###STOP###"]);
    const s = await runEpisode({
      domain: fakeDomain([task]),
      task,
      agent: new LLMAgent(modelOf(stop, "a")),
      user: scriptedUser(),
    });
    expect(s.termination).toBe("agent_stop");
  });

  it("records a dead agent endpoint as an infrastructure error, not a 0 from the agent", async () => {
    const dead = await start({ failures: () => 502 });
    const r = await runTau2({
      bench: "fake",
      domain: fakeDomain([task]),
      agent: new LLMAgent(modelOf(dead, "a")),
      user: scriptedUser(),
    });
    expect(r.results[0]).toMatchObject({ termination: "infrastructure_error", reward: 0 });
    expect((r.results[0] as { error: string }).error).toMatch(/ENDPOINT_ERROR/);
  });
});

describe("oracle policies on the fake domain", () => {
  const run = (agent: Tau2Agent) =>
    runTau2({
      bench: "fake",
      domain: fakeDomain([task]),
      agent,
      user: scriptedUser(),
      trials: 2,
      concurrency: 2,
    });
  it("gold replays the gold actions and states communicate_info", async () => {
    const r = await run(goldAgent());
    expect(r.reward_mean).toBe(1);
    expect(r.pass_hat_k).toEqual({ 1: 1, 2: 1 });
  });
  it("noop fails a task whose gold actions write", async () => {
    const r = await run(noopAgent());
    expect(r.reward_mean).toBe(0);
    expect(r.results[0]!.components.DB?.status).toBe("failed");
  });
});

describe("replays that continue after a transfer", () => {
  it("execute every call, before and after the transfer, and score the final state", async () => {
    const calls = [
      { name: "set_value", arguments: { key: "a", value: 1 }, requestor: "assistant" as const },
      {
        name: "transfer_to_human_agents",
        arguments: { summary: "wants a human" },
        requestor: "assistant" as const,
      },
      { name: "set_value", arguments: { key: "a", value: 5 }, requestor: "assistant" as const },
    ];
    const r = await runTau2({
      bench: "fake",
      domain: fakeDomain([task]),
      ...replayPair(new Map([[task.id, calls]])),
      validateCalls: false,
    });
    const trial = r.results[0]!;
    expect(trial.termination).toBe("user_stop");
    expect(trial.transfers).toBe(1);
    // the DB check passes only if the call after the transfer ran (a = 5, not 1)
    expect(trial.components.DB?.status).toBe("passed");
  });
});
