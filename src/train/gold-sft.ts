import type { PolicyRole } from "../core/messages.js";
import type { Task } from "../core/task.js";
import { taskKindOf, type GoldTrajectory } from "../envs/task-kind-registry.js";
import type { RehearsalPromptVariant } from "../rollout/rehearsal-prompt.js";
import type { EpisodeResult, ToolCallRecord } from "../rollout/types.js";
import { actingExample, rehearsingExamplesFromEpisode, type SftExample } from "./sft.js";

/**
 * SFT examples from the gold solver its task kind registered (`src/envs/task-kind-registry.ts`;
 * toolworld has one): the gold conversation (acting) and, for each gold call, the rehearsal prompt
 * answered with the real result (rehearsing). Tasks whose kind has no gold solver are skipped.
 */
export function goldSftExamples(
  tasks: readonly Task[],
  opts: { roles: readonly PolicyRole[]; variant: RehearsalPromptVariant },
): Record<PolicyRole, SftExample[]> {
  const out: Record<PolicyRole, SftExample[]> = { act: [], rehearse: [] };
  for (const task of tasks) {
    const goldRun = taskKindOf(task)?.goldRun;
    if (!goldRun) continue;
    const one = goldRunSftExamples(task, goldRun(task), opts);
    out.act.push(...one.act);
    out.rehearse.push(...one.rehearse);
  }
  return out;
}

/** The same for one task whose gold run the caller already has (it is reused for other data). */
export function goldRunSftExamples(
  task: Task,
  run: GoldTrajectory,
  opts: { roles: readonly PolicyRole[]; variant: RehearsalPromptVariant },
): Record<PolicyRole, SftExample[]> {
  const out: Record<PolicyRole, SftExample[]> = { act: [], rehearse: [] };
  if (opts.roles.includes("act")) out.act.push(actingExample(run.messages, task.tools));
  if (opts.roles.includes("rehearse")) {
    // The gold run as a real-mode episode, so the rehearsal prompts match the rollout's exactly.
    const calls: ToolCallRecord[] = run.turns.flatMap((t, turn) =>
      t.calls.map((c) => ({
        turn,
        call: c.call,
        result: JSON.stringify(c.result),
        ok: c.ok,
        source: "real" as const,
      })),
    );
    const ep = { messages: run.messages, calls } as Pick<
      EpisodeResult,
      "messages" | "calls"
    > as EpisodeResult;
    out.rehearse.push(...rehearsingExamplesFromEpisode(task, ep, opts.variant));
  }
  return out;
}
