/** The VitaBench conversation loop on scripted roles and a real environment. */
import { describe, expect, it } from "vitest";
import { VitaEnvironment } from "../../../src/envs/vita/environment.js";
import { readVitaTasks } from "../../../src/bench/vita/tasks.js";
import {
  noopAgent,
  replayAgent,
  scriptedUser,
  type VitaAgent,
  type VitaUser,
} from "../../../src/bench/vita/agents.js";
import { runVitaEpisode } from "../../../src/bench/vita/run-episode.js";
import { runVita } from "../../../src/bench/vita/run-vita.js";

const FILE = new URL("../../../../shared/data/vitabench/delivery/tasks_en.json", import.meta.url).pathname;
const task = readVitaTasks(FILE, "delivery")[0]!;
const env = () => new VitaEnvironment("delivery", task.environment, { clock: () => 1 });
const user = (lines: string[]): VitaUser => ({
  name: "lines",
  start: () => {
    let i = 0;
    return { next: async () => lines[i++] ?? "###STOP###" };
  },
});
const agent = (
  replies: {
    content: string | null;
    toolCalls: { id: string; name: string; arguments: Record<string, unknown> }[];
  }[],
): VitaAgent => ({
  name: "scripted",
  start: () => {
    let i = 0;
    return { next: async () => replies[i++] ?? { content: "###STOP###", toolCalls: [] } };
  },
});

describe("runVitaEpisode", () => {
  it("greets, lets the user speak, runs tool calls and ends on the agent's stop token", async () => {
    const replay = replayAgent(
      new Map([[task.id, [{ name: "get_delivery_store_info", arguments: { store_id: "nope" } }]]]),
    );
    const ep = await runVitaEpisode({ task, env: env(), agent: replay, user: scriptedUser(), lang: "en" });
    expect(ep.messages.map((m) => m.role)).toEqual(["assistant", "user", "assistant", "tool", "assistant"]);
    expect(ep.messages[0]!.content).toBe("Hello, how can I help you?");
    expect(ep.messages[1]!.content).toBe(task.instructions);
    expect(ep).toMatchObject({
      termination: "agent_stop",
      toolErrors: 1,
      results: ["Error: Store nope not found"],
    });
  });

  it("ends on the user's stop token, after max steps, or after three empty agent replies", async () => {
    const byUser = await runVitaEpisode({
      task,
      env: env(),
      agent: agent([{ content: "Sure.", toolCalls: [] }]),
      user: user(["hi"]),
      lang: "en",
    });
    expect(byUser.termination).toBe("user_stop");
    const chatty = agent(Array.from({ length: 50 }, () => ({ content: "tell me more", toolCalls: [] })));
    const long = await runVitaEpisode({
      task,
      env: env(),
      agent: chatty,
      user: user(Array(50).fill("more")),
      lang: "en",
      maxSteps: 6,
    });
    expect(long).toMatchObject({ termination: "max_steps", steps: 6 });
    const mute = await runVitaEpisode({
      task,
      env: env(),
      agent: agent(Array(3).fill({ content: " ", toolCalls: [] })),
      user: user(["hi"]),
      lang: "en",
    });
    expect(mute.termination).toBe("invalid_agent_message");
  });

  it("scores premature endings 0 without judging, and unjudged tasks as null", async () => {
    const s = await runVita({
      bench: "vita:delivery",
      tasks: [task],
      lang: "en",
      agent: noopAgent(),
      user: scriptedUser(),
      maxSteps: 1,
    });
    expect(s.results[0]).toMatchObject({ reward: 0, termination: "max_steps", judge_status: "skipped" });
    const t = await runVita({
      bench: "vita:delivery",
      tasks: [task],
      lang: "en",
      agent: noopAgent(),
      user: scriptedUser(),
    });
    expect(t).toMatchObject({ not_judged: 1, pass_hat_k: {}, reward_mean: 0 });
    expect(t.results[0]!.reward).toBeNull();
  });

  it("reads task files with typed errors", () => {
    expect(() => readVitaTasks("/nonexistent/tasks_en.json", "delivery")).toThrow(
      /envace data fetch vitabench/,
    );
  });
});
