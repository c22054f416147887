import { mapConcurrent } from "../core/map-concurrent.js";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import { createToolworldEnv } from "../envs/toolworld/index.js";
import type { TestTimeRow } from "../report/results.js";
import { meanCI } from "../report/stats.js";
import { runEpisodeWithRehearsal } from "../testtime/episode.js";
import type { RehearsalOptions } from "../testtime/types.js";
import { EVAL_DECODING } from "./evaluate.js";

/**
 * Test-time private rehearsal rows (issue 6 in the demo's table): the policy rehearses each user
 * turn N times in imagination, condenses the attempts into a digest, then commits once in the
 * real environment. The tasks are the demo's evaluation tasks, whose `examples` are other tasks' logs
 * of the same world, never their own recorded results (`DemoData.eval`): the rehearser is not shown
 * the answers, and rehearsal rests on that evidence and the policy's own world model.
 */
export async function testTimeRows(
  policyName: string,
  policy: ChatModel,
  tasks: readonly Task[],
  n: number,
  concurrency: number,
  /** Sampling temperature of the imagined attempts (acting and rehearsing). */
  attemptTemperature = 1,
): Promise<TestTimeRow[]> {
  const modes: RehearsalOptions[] = [
    { mode: "none" },
    { mode: "parallel", n, memory: "digest" },
    { mode: "sequential", n, memory: "digest" },
  ];
  const rows: TestTimeRow[] = [];
  for (const rehearsal of modes) {
    const options: RehearsalOptions = {
      ...rehearsal,
      promptVariant: "compact",
      maxTokensPerCall: EVAL_DECODING.maxTokens,
      maxStepsPerAttempt: EVAL_DECODING.maxAssistantTurns,
      temperature: attemptTemperature,
    };
    const results = await mapConcurrent(
      tasks,
      Math.max(1, Math.floor(concurrency / Math.max(1, n))),
      (task) =>
        runEpisodeWithRehearsal(task, {
          policy,
          envFactory: (t) => createToolworldEnv(t),
          rehearsal: options,
          temperature: EVAL_DECODING.temperature,
          maxTokens: EVAL_DECODING.maxTokens,
          maxAssistantTurns: EVAL_DECODING.maxAssistantTurns,
          maxParallelCalls: EVAL_DECODING.maxParallelCalls,
          contextBudgetTokens: 2048,
        }),
    );
    const success = meanCI(results.map((r) => (r.success ? 1 : 0)));
    rows.push({
      policy: policyName,
      mode: rehearsal.mode,
      n: rehearsal.mode === "none" ? 0 : n,
      ...(rehearsal.mode === "none" ? {} : { memory: "digest" }),
      success: { mean: success.mean, ci95: Number.isNaN(success.ci95) ? null : success.ci95, n: success.n },
      real_calls_during_rehearsal: results.reduce((a, r) => a + r.rehearsal.realCallsDuringRehearsal, 0),
      rehearsal_tokens_per_task:
        results.reduce((a, r) => a + r.rehearsal.tokens.total, 0) / Math.max(1, results.length),
    });
  }
  return rows;
}
