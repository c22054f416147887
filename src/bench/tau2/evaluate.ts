import type { ChatModel } from "../../core/model.js";
import { errorLine } from "../../core/errors.js";
import type { Tau2DomainLike, Tau2EnvLike } from "./env-port.js";
import { checkActions } from "./evaluate-action.js";
import { checkCommunicate } from "./evaluate-communicate.js";
import { checkEnvironment } from "./evaluate-env.js";
import { judgeNLAssertions } from "./evaluate-nl.js";
import {
  DEFAULT_REWARD_BASIS,
  SCORED_TERMINATIONS,
  type ComponentResult,
  type RewardType,
  type Tau2Evaluation,
  type Tau2Message,
  type Tau2TaskView,
  type Termination,
} from "./types.js";

export interface EvaluateInput {
  domain: Tau2DomainLike;
  task: Tau2TaskView;
  /** The whole conversation, the task's initial history included. */
  messages: readonly Tau2Message[];
  /** How many of `messages` are the task's initial history (already in a fresh env's state). */
  initialCount: number;
  termination: Termination;
  /** LLM judge for NL assertions; without one the component is `skipped`, never passed. */
  judge?: ChatModel;
}

export interface EvaluateOutput extends Tau2Evaluation {
  /** The rebuilt environment after replaying the conversation's calls (absent when not scored). */
  predictedEnv?: Tau2EnvLike;
}

const pass = (ok: boolean, inBasis: boolean, extra: Partial<ComponentResult> = {}): ComponentResult => ({
  status: ok ? "passed" : "failed",
  reward: ok ? 1 : 0,
  inBasis,
  ...extra,
});

/**
 * Upstream `evaluate_simulation` with EvaluationType.ALL: DB (+ENV_ASSERTION), ACTION and
 * COMMUNICATE always run, NL_ASSERTION when in the basis; reward = product of the components in
 * the task's `reward_basis`. A skipped component (no judge) is left out of the product; an errored
 * one (judge failed) makes the reward 0.
 */
export async function evaluateEpisode(input: EvaluateInput): Promise<EvaluateOutput> {
  const { task, messages, termination } = input;
  const criteria = task.evaluation_criteria;
  const rewardBasis = [...(criteria?.reward_basis ?? DEFAULT_REWARD_BASIS)];
  if (!SCORED_TERMINATIONS.has(termination)) {
    return { reward: 0, rewardBasis, components: {}, note: `terminated prematurely: ${termination}` };
  }
  if (!criteria) return { reward: 1, rewardBasis, components: {}, note: "no evaluation criteria" };
  const inBasis = (t: RewardType) => rewardBasis.includes(t);
  const components: Partial<Record<RewardType, ComponentResult>> = {};

  const env = await checkEnvironment(input.domain, task, messages.slice(input.initialCount));
  components.DB = env.db
    ? pass(env.db.match, inBasis("DB"), { checks: [env.db] })
    : pass(true, inBasis("DB"), { note: "no expected actions or env assertions" });
  if ((criteria.env_assertions?.length ?? 0) > 0 || inBasis("ENV_ASSERTION")) {
    components.ENV_ASSERTION = env.assertionsUnsupported
      ? {
          status: "error",
          reward: null,
          inBasis: inBasis("ENV_ASSERTION"),
          note: "environment cannot run env assertions",
        }
      : pass(
          env.assertions.every((c) => c.met),
          inBasis("ENV_ASSERTION"),
          { checks: env.assertions },
        );
  }

  const gold = criteria.actions ?? [];
  const actionChecks = checkActions(messages, gold);
  components.ACTION = pass(
    actionChecks.every((c) => c.met),
    inBasis("ACTION"),
    gold.length === 0 ? { note: "no actions to evaluate" } : { checks: actionChecks },
  );

  const infos = criteria.communicate_info ?? [];
  const commChecks = checkCommunicate(messages, infos);
  components.COMMUNICATE = pass(
    commChecks.every((c) => c.met),
    inBasis("COMMUNICATE"),
    infos.length === 0 ? { note: "no communicate_info to evaluate" } : { checks: commChecks },
  );

  if (inBasis("NL_ASSERTION"))
    components.NL_ASSERTION = await nlComponent(input, criteria.nl_assertions ?? []);

  let reward = 1;
  for (const [type, c] of Object.entries(components) as Array<[RewardType, ComponentResult]>) {
    if (!inBasis(type) || c.status === "skipped") continue;
    reward *= c.status === "error" ? 0 : (c.reward ?? 0);
  }
  return { reward, rewardBasis, components, predictedEnv: env.predicted };
}

async function nlComponent(input: EvaluateInput, assertions: readonly string[]): Promise<ComponentResult> {
  if (assertions.length === 0) return pass(true, true, { note: "no nl_assertions to evaluate" });
  if (!input.judge) return { status: "skipped", reward: null, inBasis: true, note: "no judge configured" };
  try {
    const checks = await judgeNLAssertions(input.judge, input.messages, assertions);
    return pass(
      checks.every((c) => c.met),
      true,
      { checks },
    );
  } catch (e) {
    return {
      status: "error",
      reward: null,
      inBasis: true,
      note: errorLine(e),
    };
  }
}
