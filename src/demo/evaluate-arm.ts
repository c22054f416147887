import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import type { ArmResult } from "../report/results.js";
import type { ArmSpec } from "./arms.js";
import type { DemoData } from "./data.js";
import {
  ownCallFidelity,
  recordedFidelity,
  runEvalEpisodes,
  runRehearsedWorld,
  firstCallCopy,
} from "./evaluate.js";
import { EVAL_SPLITS, type DemoPlan, type EvalSplit } from "./layout.js";

/** Per-task outcomes of one arm on one seed, kept so that several seeds can be pooled. */
export interface ArmEvaluation {
  success: Record<EvalSplit, number[]>;
  reward: number[];
  fidelity: NonNullable<ArmResult["fidelity"]>;
  rehearsedWorldSuccess: number[] | null;
  firstCallCopy: number;
  /** Real calls made by evaluation (reported, not part of the scarce training budget). */
  evalEnvCalls: number;
}

/**
 * Evaluates a policy in the real environments on the three held-out sets; measures rehearsal
 * fidelity on recorded calls (the env-less domains' held-out traces) and on its own calls; and,
 * for rehearsal arms, success inside its own rehearsed world on the env-less set.
 */
export async function evaluateArm(
  policy: ChatModel,
  arm: ArmSpec,
  data: DemoData,
  plan: DemoPlan,
): Promise<ArmEvaluation> {
  const success = {} as Record<EvalSplit, number[]>;
  const reward: number[] = [];
  let evalEnvCalls = 0;
  let envlessEpisodes: Awaited<ReturnType<typeof runEvalEpisodes>>["episodes"] = [];
  let copy = 0;
  for (const split of EVAL_SPLITS) {
    const tasks: Task[] = data.eval[split];
    const out = await runEvalEpisodes(policy, tasks, { concurrency: plan.concurrency });
    success[split] = out.success;
    reward.push(...out.reward);
    evalEnvCalls += out.envCalls;
    if (split === "envless") {
      envlessEpisodes = out.episodes;
      copy = firstCallCopy(out.episodes, tasks);
    }
  }
  const recorded = await recordedFidelity(policy, data.eval.envless, plan.fidelityCalls, plan.concurrency);
  const own = await ownCallFidelity(
    policy,
    data.eval.envless,
    envlessEpisodes,
    plan.fidelityCalls,
    plan.concurrency,
  );
  const rehearsedWorldSuccess = arm.rehearsedWorld
    ? (await runRehearsedWorld(policy, data.eval.envless, plan.concurrency)).success
    : null;
  return {
    success,
    reward,
    fidelity: { recorded, own_calls: own },
    rehearsedWorldSuccess,
    firstCallCopy: copy,
    evalEnvCalls,
  };
}
