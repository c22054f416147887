import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { OpenAIChatModel } from "../../../src/engines/openai-chat-model.js";
import type { MockOpenAIServer, MockReply } from "../../../src/testing/index.js";
import { resolveDataDir } from "../../../src/bench/data-dir.js";
import { LLMAgent } from "../../../src/bench/tau2/llm-agent.js";
import { runTau2 } from "../../../src/bench/tau2/run-tau2.js";
import { LLMUserSimulator } from "../../../src/bench/tau2/user-simulator.js";
import { loadTau2Domain } from "../../../src/envs/tau2/index.js";
import { mockServersClosedAfterEach } from "../../mock-servers.js";

const start = mockServersClosedAfterEach();
const scripted = (replies: MockReply[]): Promise<MockOpenAIServer> =>
  start({ handler: (_b, { index }) => replies[Math.min(index, replies.length - 1)]! });
const modelOf = (s: MockOpenAIServer) =>
  new OpenAIChatModel({ baseURL: s.baseURL, model: "m", maxRetries: 0 });

const dataRoot = resolveDataDir();
const TASK = "[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]";

describe("telecom dual control: the user simulator fixes their own phone", () => {
  const run = async (userReplies: MockReply[]) => {
    const domain = loadTau2Domain("telecom", dataRoot);
    const agent = await scripted(["Please turn airplane mode off and mobile data on.", "Glad it works!"]);
    const user = await scripted(userReplies);
    const summary = await runTau2({
      bench: "tau2:telecom",
      domain: { ...domain, tasks: domain.tasks.filter((t) => t.id === TASK), defaultSplit: undefined },
      agent: new LLMAgent(modelOf(agent)),
      user: new LLMUserSimulator(modelOf(user), { guidelinesDir: join(dataRoot, "tau2", "user_simulator") }),
    });
    return { summary, agent, user };
  };

  it("runs the user's tool calls on the phone, shows the results to the user only, and scores the phone", async () => {
    const { summary, agent, user } = await run([
      "My mobile data does not work.",
      { content: null, toolCalls: [{ name: "toggle_airplane_mode", arguments: {} }] },
      { content: null, toolCalls: [{ name: "toggle_data", arguments: {} }] },
      "Done, it works now.",
      "###STOP###",
    ]);
    expect(summary.results[0]).toMatchObject({ task_id: TASK, reward: 1, termination: "user_stop" });
    expect(summary.results[0]!.components.ENV_ASSERTION?.status).toBe("passed");

    // the user simulator got the tools-guidelines prompt and its 30 phone tools
    const first = user.requests[0]!.body;
    expect(first.messages[0]!.content).toContain("<scenario>");
    expect((first.tools as unknown[]).length).toBe(30);
    // its own tool results come back to it, then the turn stays with it
    const afterCall = user.requests[2]!.body.messages.at(-1)!;
    expect(afterCall).toMatchObject({ role: "tool" });
    expect(String(afterCall.content)).toMatch(/^Airplane Mode is now OFF\.\nStatus Bar: /);
    // the agent never sees the user's tool traffic, only the user's words
    const agentSaw = JSON.stringify(agent.requests.map((r) => r.body.messages));
    expect(agentSaw).not.toContain("Airplane Mode is now OFF");
    expect(agentSaw).toContain("Done, it works now.");
  });

  it("a user who only talks leaves the phone broken: the env assertions fail", async () => {
    const { summary } = await run(["My mobile data does not work.", "It works now, thanks. ###STOP###"]);
    expect(summary.results[0]).toMatchObject({ reward: 0, termination: "user_stop" });
    expect(summary.results[0]!.components.ENV_ASSERTION?.status).toBe("failed");
  });
});
