import { describe, expect, it } from "vitest";
import { isEnvaceError } from "../../../src/core/errors.js";
import type { Task } from "../../../src/core/task.js";
import { DOMAIN_SPECS } from "../../../src/envs/toolworld/domains/index.js";
import { parseUserTurn } from "../../../src/envs/toolworld/gold-solver.js";
import { domainIntents } from "../../../src/envs/toolworld/intents.js";
import { createToolworldEnv, generateTasks, goldSolve } from "../../../src/envs/toolworld/index.js";
import { fill } from "../../../src/envs/toolworld/template.js";

const SAMPLE_SLOTS = { id: "x7", key: "kim@mail", amount: "30", to: "a9", day: "friday" };

describe("toolworld scripted solver", () => {
  it("reads every paraphrase template back as exactly its own intent", () => {
    for (const d of DOMAIN_SPECS) {
      for (const intent of domainIntents(d)) {
        for (const template of intent.templates) {
          const text = fill(template, SAMPLE_SLOTS);
          expect(parseUserTurn(d, text).intent.kind, `${d.name}: ${text}`).toBe(intent.kind);
        }
      }
    }
  });

  it("refuses a user turn that no template matches, with a typed error", () => {
    const task = generateTasks({ domain: "shop", seed: 1, count: 1, split: "train" })[0] as Task;
    const broken = { ...task, user_turns: ["sing me a song"] };
    expect(() => goldSolve(broken)).toThrow(/matches 0 templates/);
  });

  it("produces a full conversation: user, assistant calls, tool results, reply, per turn", () => {
    const tasks = generateTasks({ domain: "bank", seed: 2, count: 40, split: "train" });
    const task = tasks.find((t) => t.user_turns.length === 2) as Task;
    const gold = goldSolve(task);
    expect(gold.messages[0]).toEqual({ role: "system", content: task.system });
    expect(gold.messages.slice(1)).toEqual(gold.turns.flatMap((t) => t.messages));
    for (const turn of gold.turns) {
      expect(turn.messages[0]).toEqual({ role: "user", content: turn.user });
      expect(turn.messages.at(-1)).toEqual({ role: "assistant", content: turn.reply });
      const toolMessages = turn.messages.filter((m) => m.role === "tool");
      expect(toolMessages.map((m) => m.toolCallId)).toEqual(turn.calls.map((c) => c.call.id));
      expect(toolMessages.map((m) => JSON.parse(m.content) as unknown)).toEqual(
        turn.calls.map((c) => c.result),
      );
    }
  });

  it("rebuilds a task's world only from a toolworld env", () => {
    const task = generateTasks({ domain: "calendar", seed: 4, count: 1, split: "heldout" })[0] as Task;
    const seed = (task.env as unknown as { seed: number }).seed;
    expect(createToolworldEnv(task).hash()).toBe(createToolworldEnv({ domain: "calendar", seed }).hash());
    const wrong = { ...task, env: { kind: "tau2" as const, domain: "retail" } };
    try {
      createToolworldEnv(wrong);
      expect.unreachable();
    } catch (e) {
      expect(isEnvaceError(e, "INVALID_TASK_FILE")).toBe(true);
    }
  });
});
