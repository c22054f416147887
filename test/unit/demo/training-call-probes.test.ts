import { describe, expect, it } from "vitest";
import type { ChatModel, ChatRequest } from "../../../src/core/model.js";
import { scopedSeed } from "../../../src/core/sampling-seeds.js";
import type { Task } from "../../../src/core/task.js";
import { answerInPrompt } from "../../../src/demo/fidelity-probes.js";
import { trainingCallProbes } from "../../../src/demo/training-call-probes.js";
import {
  createToolworldEnv,
  generateTasks,
  goldSolve,
  toolworldResultValue,
} from "../../../src/envs/toolworld/index.js";

const callText = (name: string, args: Record<string, unknown>) =>
  `<tool_call>${JSON.stringify({ name, arguments: args })}</tool_call>`;

/**
 * An actor that makes, in each user turn, the gold run's first call of the task, then the same call
 * with every string argument replaced by an unknown id (an off-log mistake), then replies. Records
 * every request with the seed an engine would send.
 */
function goldThenWrongActor(tasks: readonly Task[], requests: ChatRequest[]): ChatModel {
  const firstCall = new Map(tasks.map((t) => [t.user_turns[0], goldSolve(t).turns[0]!.calls[0]!.call]));
  return {
    name: "gold-then-wrong",
    chat(request) {
      // as an engine does: the episode's sampling-seed scope gives each request its seed
      requests.push({ ...request, seed: request.seed ?? scopedSeed() });
      const user = [...request.messages].reverse().find((m) => m.role === "user")!;
      const first = firstCall.get(user.content)!;
      const answered = request.messages.filter((m) => m.role === "tool").length;
      const wrongArgs = Object.fromEntries(
        Object.entries(first.arguments).map(([k, v]) => [k, typeof v === "string" ? "zz404" : v]),
      );
      const text =
        answered === 0
          ? callText(first.name, first.arguments)
          : answered === 1
            ? callText(first.name, wrongArgs)
            : "done";
      return Promise.resolve({ samples: [{ text, finishReason: "stop" }] });
    },
  };
}

// Single-turn tasks whose gold run starts with a call: the actor's script is about turn 0.
const tasks = generateTasks({ domain: "bank", seed: 3, count: 12, split: "train" })
  .filter((t) => t.user_turns.length === 1 && (goldSolve(t).turns[0]?.calls.length ?? 0) > 0)
  .slice(0, 3);

describe("trainingCallProbes", () => {
  it("turns the actor's calls on training tasks into probes answered by the real environment", async () => {
    expect(tasks).toHaveLength(3);
    const requests: ChatRequest[] = [];
    const opts = { samples: 2, temperature: 1, seed: 7, concurrency: 2 };
    const probes = await trainingCallProbes(goldThenWrongActor(tasks, requests), tasks, opts);
    // two calls an episode, two episodes a task
    expect(probes).toHaveLength(tasks.length * 2 * 2);
    for (const task of tasks) {
      const mine = probes.filter((p) => p.task.id === task.id);
      expect(mine).toHaveLength(4);
      // The task keeps its own recorded calls (the training prompt): the gold call's answer is shown.
      expect(mine[0]!.task.examples).toEqual(task.examples);
      const env = createToolworldEnv(task);
      for (const [i, p] of mine.entries()) {
        const gold = i % 2 === 0;
        expect(answerInPrompt(p)).toBe(gold);
        if (i < 2) {
          // the real environment's answer, as a fresh episode's environment gives it
          expect(p.real).toEqual(toolworldResultValue(env.callSync({ ...p.call, id: `c${i}` })));
        }
        if (!gold) expect(JSON.stringify(p.call.arguments)).toContain("zz404");
      }
    }
    // RL's temperature, and seeded draws: the two samples of a task differ, a rerun repeats them.
    expect(requests.every((r) => r.temperature === 1)).toBe(true);
    const seeds = (rs: readonly ChatRequest[]) => rs.map((r) => r.seed).sort();
    expect(requests.every((r) => typeof r.seed === "number")).toBe(true);
    expect(new Set(requests.map((r) => r.seed)).size).toBe(requests.length);
    const again: ChatRequest[] = [];
    await trainingCallProbes(goldThenWrongActor(tasks, again), tasks, opts);
    expect(seeds(again)).toEqual(seeds(requests));
  });
});
