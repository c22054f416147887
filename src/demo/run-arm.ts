import { join } from "node:path";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import { startWorker, type WorkerProcess } from "../engines/worker-supervisor.js";
import { createToolworldEnv } from "../envs/toolworld/index.js";
import { boundedChatModel } from "../rollout/bounded-model.js";
import { rehearsalResponder, simulatorResponder } from "../rollout/model-responder.js";
import { realResponder } from "../rollout/real-responder.js";
import type { Responder } from "../rollout/responder.js";
import { parseLoopConfig } from "../train/config.js";
import { runTrainLoop, type EpisodeSampler } from "../train/loop.js";
import { rolloutSampler } from "../train/rollout-sampler.js";
import type { StepMetrics } from "../train/step-metrics.js";
import type { ArmSpec } from "./arms.js";
import { EVAL_DECODING } from "./evaluate.js";
import { demoRehearsalPrompt, demoWorkerArgs, type DemoPlan } from "./layout.js";
import { withCompactTools } from "./policy-view.js";
import { workerLogTo } from "./worker-log.js";
import { curveEvaluator } from "./curve.js";
import { borrowWithinDomains } from "./data.js";
import { tasksWithLoggedNotes } from "./rehearsal-notes.js";
import { withOwnRehearsalNotes } from "./own-rehearsal-notes.js";
import { planTestTimeRehearsal } from "./testtime-rows.js";
import { withLoggedRehearseReward, type LoggedAnswerBook } from "./logged-answers.js";

/** Training rollouts' limits: toolworld acts and rehearsals are short. */
const TRAIN_LIMITS = { max_assistant_turns: 4, max_parallel_calls: 4, context_budget: 1024, max_tokens: 96 };

export interface ArmTraining {
  /** Real environment calls made by training rollouts (the scenario's scarce resource). */
  envCalls: number;
  steps: number;
  metrics: StepMetrics[];
  /** Per step, rehearsals scored against an answer book and how many answered as it says (`rehearseReward: "logged" | "recorded"`). */
  loggedRehearsals?: { scored: number; right: number }[];
}

/**
 * Binary task success as the RL reward (the probes: partial checklist credit can be farmed
 * by inaction; success cannot).
 */
function binaryReward(sampler: EpisodeSampler): EpisodeSampler {
  return {
    async sampleGroups(tasks, opts) {
      const out = await sampler.sampleGroups(tasks, opts);
      const groups = out.groups.map((g) =>
        g.map((e) => (e.masked ? e : { ...e, reward: e.success ? 1 : 0 })),
      );
      return { ...out, groups };
    },
  };
}

/**
 * One arm's RL from the SFT checkpoint: a fresh policy worker started from it (so its KL
 * reference is the SFT model), and for `simulator` a second, frozen worker of the same
 * checkpoint answering tool calls. Returns the still-running policy worker for evaluation.
 */
export async function trainArm(
  arm: ArmSpec,
  ctx: {
    sftDir: string;
    plan: DemoPlan;
    tasks: Task[];
    outDir: string;
    seed: number;
    onStep: (m: StepMetrics) => void;
    onEpisode: (done: number, total: number) => void;
    /** Env-less evaluation tasks of the success curve (real and rehearsed world, every `curveEvery` steps). */
    curveTasks: Task[];
    /** The answers rehearsals are scored against (`rehearseReward: "logged" | "recorded"`). */
    loggedAnswers?: LoggedAnswerBook;
  },
): Promise<{ worker: WorkerProcess; policy: ChatModel; training: ArmTraining }> {
  const { plan } = ctx;
  // One rehearsal prompt for the curve, RL's responder and the policy's own notes: the one SFT taught.
  const variant = demoRehearsalPrompt(plan);
  // Checkpoints go under the arm's run directory, wherever `--out` puts it.
  const worker = await startWorker({
    model: ctx.sftDir,
    port: 0,
    restartOnCrash: true,
    checkpointRoot: ctx.outDir,
    extraArgs: demoWorkerArgs(plan),
    onLog: workerLogTo(join(ctx.outDir, "worker.log")),
  });
  const policy = boundedChatModel(withCompactTools(worker.client.chatModel()), plan.concurrency);
  const curve = curveEvaluator(policy, ctx.curveTasks, arm, {
    concurrency: plan.concurrency,
    file: join(ctx.outDir, "curve.jsonl"),
    variant,
  });
  try {
    await curve.evaluate(0); // the SFT model: where every arm's curve starts
  } catch (e) {
    await worker.stop();
    throw e;
  }
  if (arm.mode === null) return { worker, policy, training: { envCalls: 0, steps: 0, metrics: [] } };

  let simulator: WorkerProcess | undefined;
  try {
    const rehearseOpts = { variant, maxTokens: EVAL_DECODING.maxTokens };
    let responder: Responder;
    if (arm.mode === "rehearsal") {
      const topP =
        plan.rl.rehearseTopP !== undefined && plan.rl.rehearseTopP < 1 ? { topP: plan.rl.rehearseTopP } : {};
      responder = rehearsalResponder(policy, { ...rehearseOpts, temperature: 1, ...topP });
    } else if (arm.mode === "simulator") {
      simulator = await startWorker({
        model: ctx.sftDir,
        port: 0,
        onLog: workerLogTo(join(ctx.outDir, "simulator-worker.log")),
      });
      const frozen = boundedChatModel(simulator.client.chatModel(), plan.concurrency);
      responder = simulatorResponder(frozen, { ...rehearseOpts, temperature: 0 });
    } else responder = realResponder((t) => createToolworldEnv(t));

    const config = parseLoopConfig({
      mode: arm.mode,
      group_size: plan.rl.groupSize,
      tasks_per_step: plan.rl.tasksPerStep,
      steps: plan.rl.steps,
      lr: plan.rl.lr,
      weight_decay: 0, // the tiny recipe; the defaults are the reference's, for Hugging Face models
      loss: { fn: "ppo", clip_low: 0.2, clip_high: 0.28, kl_coef: arm.klCoef },
      roles: arm.roles,
      // per-user-turn cap: under the reference's episode-wide cap (checked only after a reply) a tiny
      // policy that never replies runs up to max_steps (200) model calls per episode
      limits: { ...TRAIN_LIMITS, turn_limit_scope: "user_turn" },
      rehearsal_prompt: variant,
      checkpoint_every: plan.rl.steps,
      eval_every: plan.rl.curveEvery,
      seed: ctx.seed + (plan.experiments?.rlSeedOffset ?? 0),
      rehearse_baseline: plan.experiments?.rehearseBaseline ?? "role",
      concurrency: plan.concurrency,
      temperature: 1,
    });
    const metrics: StepMetrics[] = [];
    const scoredCounts: { scored: number; right: number }[] = [];
    const rlTasks = plan.experiments?.rlExamples === "borrowed" ? borrowWithinDomains(ctx.tasks) : ctx.tasks;
    const rewarded = binaryReward(
      withOwnRehearsalNotes(
        rolloutSampler({
          policy,
          responder,
          config,
          onEpisode: (done, total) => ctx.onEpisode(done, total),
        }),
        {
          policy,
          share: plan.experiments?.rlOwnNoteShare ?? 0,
          seed: ctx.seed,
          rehearsal: planTestTimeRehearsal(plan),
          pool: rlTasks,
        },
      ),
    );
    // After the task reward: a scored rehearsal's own reward replaces its episode's.
    const sampler =
      arm.mode === "rehearsal" && ctx.loggedAnswers
        ? withLoggedRehearseReward(rewarded, rlTasks, ctx.loggedAnswers, (c) => scoredCounts.push(c))
        : rewarded;
    const tasks = tasksWithLoggedNotes(
      rlTasks,
      plan.rl.noteShare ?? 0,
      ctx.seed,
      plan.experiments?.pastAgentHabits,
    );
    await runTrainLoop(
      { config, tasks, outDir: ctx.outDir, resume: false },
      {
        engines: { act: worker.client, rehearse: worker.client },
        sampler,
        evaluator: curve,
        restartCount: () => worker.restarts,
        onStep: (m) => {
          metrics.push(m);
          ctx.onStep(m);
        },
      },
    );
    const envCalls = metrics.reduce((a, m) => a + m.env_calls, 0);
    const logged = scoredCounts.length > 0 ? { loggedRehearsals: scoredCounts } : {};
    return { worker, policy, training: { envCalls, steps: metrics.length, metrics, ...logged } };
  } catch (e) {
    await worker.stop();
    throw e;
  } finally {
    await simulator?.stop();
  }
}

export const armOutDir = (runDir: string, arm: string): string => join(runDir, "arms", arm);
