import { describe, expect, it } from "vitest";
import { countFailures, failureKind, type FailureKind } from "../../../src/bench/failure-kinds.js";
import type { Task } from "../../../src/core/task.js";
import { renderAssistantText } from "../../../src/core/tool-call-text.js";
import {
  createToolworldEnv,
  generateTasks,
  pastAgentRun,
  type PastAgentFlaw,
} from "../../../src/envs/toolworld/index.js";
import { realResponder, runEpisode, type EpisodeResult } from "../../../src/rollout/index.js";
import { ScriptedPolicy } from "../../../src/testing/index.js";

const NO_HABITS = { forbidden_write: 0, stop_early: 0, skip_lookup: 0, wrong_fact: 0, similar_id: 0 };

function tasks(): Task[] {
  const worlds = { seed: 7, count: 2 };
  return ["bank", "calendar"].flatMap((domain, i) =>
    generateTasks({ domain, seed: 11 + i, count: 60, split: "train", worlds, unique: false }),
  );
}

/** The past agent's logged run replayed in the task's real environment, act by act. */
async function replay(
  task: Task,
  habit: PastAgentFlaw | null,
): Promise<{ episode: EpisodeResult; flawed: boolean }> {
  let state = 1;
  const rand = () => (state = (state * 48271) % 2147483647) / 2147483647;
  const habits = habit ? { ...NO_HABITS, [habit]: 1 } : NO_HABITS;
  const run = pastAgentRun(task, rand, habits);
  const acts = run.messages
    .filter((m) => m.role === "assistant")
    .map((m) => renderAssistantText(m.content, m.toolCalls ?? []));
  const policy = new ScriptedPolicy({ act: acts });
  const episode = await runEpisode(task, {
    policy,
    responder: realResponder((t) => createToolworldEnv(t)),
    maxParallelCalls: 4,
  });
  return { episode, flawed: run.flaws.length > 0 };
}

describe("failureKind", () => {
  it("a correct log succeeds and has no failure kind", async () => {
    for (const task of tasks().slice(0, 20)) {
      const { episode } = await replay(task, null);
      expect(episode.success).toBe(true);
      expect(failureKind(task, episode)).toBeNull();
    }
  });

  // Each of the past agent's mistakes, replayed for real, is named by the checklist verdicts alone.
  it.each<[PastAgentFlaw, FailureKind[]]>([
    ["forbidden_write", ["forbidden_call"]],
    ["stop_early", ["missing_call"]],
    ["similar_id", ["wrong_arguments"]],
    ["wrong_fact", ["reply_fact"]],
    // a write without its lookup: the lookup is missing, unless the write itself was forbidden
    ["skip_lookup", ["missing_call", "forbidden_call"]],
  ])("names the past agent's %s as %j", async (flaw, expected) => {
    const seen = new Map<FailureKind | null, number>();
    for (const task of tasks()) {
      const { episode, flawed } = await replay(task, flaw);
      if (!flawed) continue;
      const kind = failureKind(task, episode);
      seen.set(kind, (seen.get(kind) ?? 0) + 1);
    }
    expect([...seen.values()].reduce((a, b) => a + b, 0)).toBeGreaterThan(3);
    for (const kind of seen.keys()) expect(expected).toContain(kind);
  });

  it("an episode that ends before its turn is scored is not_finished; counts add up", async () => {
    const task = tasks()[0]!;
    const policy = new ScriptedPolicy({ act: ['<tool_call>{"name": broken</tool_call>'] });
    const ended = await runEpisode(task, {
      policy,
      responder: realResponder((t) => createToolworldEnv(t)),
      invalidCall: "end",
    });
    expect(ended.endReason).toBe("invalid_call");
    expect(failureKind(task, ended)).toBe("not_finished");
    const { episode: ok } = await replay(task, null);
    const counts = countFailures([task, task], [ended, ok]);
    expect(counts).toMatchObject({ episodes: 2, not_finished: 1, missing_call: 0, reply_fact: 0 });
  });

  it("a failed standard without a rule (the LLM judge's verdict) is judged, after every rule kind", () => {
    const task = tasks()[0]!;
    const turn = task.checklists[0]![0]!;
    const judgedTask: Task = {
      ...task,
      checklists: [
        [
          [
            ...turn,
            { question: "Was the reply polite?", pass_condition: "polite", failure_examples: [], weight: 1 },
          ],
        ],
      ],
    };
    const verdicts = (ruleOk: boolean, judgeOk: boolean) => [[[...turn.map(() => ruleOk), judgeOk]]];
    const episode = (standardsPassed: boolean[][][]) =>
      ({ success: false, calls: [], standardsPassed }) as unknown as EpisodeResult;
    expect(failureKind(judgedTask, episode(verdicts(true, false)))).toBe("judged");
    // a rule that failed beside the judge names the cause (the rules' kinds come first)
    expect(failureKind(judgedTask, episode(verdicts(false, false)))).not.toBe("judged");
    expect(countFailures([judgedTask], [episode(verdicts(true, false))]).judged).toBe(1);
  });
});
