import { countFailures, type FailureCounts } from "../bench/failure-kinds.js";
import { summarizeFidelity } from "../bench/fidelity.js";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import type { ArmResult } from "../report/results.js";
import type { ArmSpec } from "./arms.js";
import type { DemoData } from "./data.js";
import {
  runEvalEpisodes,
  runRehearsedWorld,
  firstCallCopy,
  firstCallTransfer,
  writeCallCopy,
} from "./evaluate.js";
import {
  fidelityByTool,
  ownCallProbes,
  probeFidelity,
  recordedProbes,
  type ProbeScores,
  type ScoredProbe,
} from "./fidelity-probes.js";
import { EVAL_SPLITS, demoRehearsalPrompt, type DemoPlan, type EvalSplit } from "./layout.js";

type Fidelity = NonNullable<ArmResult["fidelity"]>["recorded"];

/** Per-task outcomes of one arm on one seed, kept so that several seeds can be pooled. */
export interface ArmEvaluation {
  success: Record<EvalSplit, number[]>;
  reward: number[];
  fidelity: NonNullable<ArmResult["fidelity"]>;
  /** Fidelity on calls whose answer no prompt showed: held-out recorded calls and the policy's own calls. */
  fidelityUnseen: Fidelity;
  /** The unseen calls' exact matches and count per tool: which responses the rehearser gets wrong. */
  fidelityUnseenByTool: ReturnType<typeof fidelityByTool>;
  rehearsedWorldSuccess: number[] | null;
  firstCallCopy: number;
  /** The env-less set's write calls made with the gold arguments (`writeCallCopy`). */
  writeCallCopy: number;
  /** The held-out domain's first calls: where transfer fails (`firstCallTransfer`). */
  heldoutFirstCall: ReturnType<typeof firstCallTransfer>;
  /** Real calls made by evaluation (reported, not part of the scarce training budget). */
  evalEnvCalls: number;
  /** Why the env-less set's failed tasks failed: the past agent's mistakes this policy still makes. */
  envlessFailures: FailureCounts;
}

/**
 * Evaluates a policy in the real environments on the three held-out sets; measures rehearsal
 * fidelity on recorded calls (with the task's own recorded answers in the prompt: the figure that
 * tests copying), on its own calls, and on every call whose answer no prompt showed; and, for
 * rehearsal arms, success inside its own rehearsed world on the env-less set. Evaluation prompts
 * never carry the evaluated task's own results (`DemoData.eval`), so the rehearsed world is the
 * policy's own, not an answer key.
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
  let writeCopy = 0;
  let heldoutFirstCall = { domain_tool: 0, right_tool: 0, exact: 0 };
  for (const split of EVAL_SPLITS) {
    const tasks: Task[] = data.eval[split];
    const out = await runEvalEpisodes(policy, tasks, { concurrency: plan.concurrency });
    success[split] = out.success;
    reward.push(...out.reward);
    evalEnvCalls += out.envCalls;
    if (split === "envless") {
      envlessEpisodes = out.episodes;
      copy = firstCallCopy(out.episodes, tasks);
      writeCopy = writeCallCopy(out.episodes, tasks);
    }
    if (split === "heldout_domain") heldoutFirstCall = firstCallTransfer(out.episodes, tasks);
  }
  const variant = demoRehearsalPrompt(plan);
  const opts = { max: plan.fidelityCalls, concurrency: plan.concurrency, variant };
  const recorded = await probeFidelity(policy, recordedProbes(data.envlessWithAnswers), opts);
  const ownProbes = ownCallProbes(data.eval.envless, envlessEpisodes);
  const ownScores: ProbeScores = new Map();
  const own = await probeFidelity(policy, ownProbes, opts, ownScores);
  const unseen = { ...opts, unseenOnly: true };
  const heldoutRecorded = await probeFidelity(policy, recordedProbes(data.eval.envless), unseen);
  const ownUnseen = await probeFidelity(policy, ownProbes, unseen, ownScores);
  const rehearsedWorldSuccess = arm.rehearsedWorld
    ? (await runRehearsedWorld(policy, data.eval.envless, plan.concurrency, variant)).success
    : null;
  const scores = (xs: readonly ScoredProbe[]) => xs.map((x) => x.score);
  const unseenProbes = [...heldoutRecorded, ...ownUnseen];
  return {
    success,
    reward,
    fidelity: { recorded: summarizeFidelity(scores(recorded)), own_calls: summarizeFidelity(scores(own)) },
    fidelityUnseen: summarizeFidelity(scores(unseenProbes)),
    fidelityUnseenByTool: fidelityByTool(unseenProbes),
    rehearsedWorldSuccess,
    firstCallCopy: copy,
    writeCallCopy: writeCopy,
    heldoutFirstCall,
    evalEnvCalls,
    envlessFailures: countFailures(data.eval.envless, envlessEpisodes),
  };
}
