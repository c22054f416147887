import type { PolicyRole } from "../core/messages.js";
import type { Task } from "../core/task.js";
import { taskKindOf } from "../envs/task-kind-registry.js";
import type { RehearsalPromptVariant } from "../rollout/rehearsal-prompt.js";
import { taskRecordings } from "../tasks/sft-sources.js";
import { goldSftExamples } from "./gold-sft.js";
import { actingExample, rehearsingExample, type SftExample } from "./sft.js";

type SftOpts = { roles: readonly PolicyRole[]; variant: RehearsalPromptVariant };

/**
 * SFT examples from recorded traces (`sft: {from: traces}`): every recorded conversation teaches
 * the act role (its assistant messages are the targets), every recorded call with its real result
 * teaches the rehearse role (the rehearsal prompt the rollout would build, answered with that
 * result).
 */
export function traceSftExamples(tasks: readonly Task[], opts: SftOpts): Record<PolicyRole, SftExample[]> {
  const out: Record<PolicyRole, SftExample[]> = { act: [], rehearse: [] };
  for (const task of tasks) {
    const rec = taskRecordings(task);
    if (opts.roles.includes("act")) {
      out.act.push(...rec.conversations.map((m) => actingExample(m, task.tools)));
    }
    if (opts.roles.includes("rehearse")) {
      out.rehearse.push(...rec.calls.map((c) => rehearsingExample({ task, ...c, variant: opts.variant })));
    }
  }
  return out;
}

/**
 * The SFT warm-up's examples for any task file: tasks whose kind has a gold solver (toolworld) use
 * it, every other task its recordings (traces and examples).
 */
export function sftExamplesForTasks(tasks: readonly Task[], opts: SftOpts): Record<PolicyRole, SftExample[]> {
  const solvable = tasks.filter((t) => taskKindOf(t)?.goldRun !== undefined);
  const recorded = tasks.filter((t) => taskKindOf(t)?.goldRun === undefined);
  const gold = goldSftExamples(solvable, opts);
  const traced = traceSftExamples(recorded, opts);
  return { act: [...gold.act, ...traced.act], rehearse: [...gold.rehearse, ...traced.rehearse] };
}
