import { appendFileSync, existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError, isEnvaceError } from "../core/errors.js";
import type { PolicyRole } from "../core/messages.js";
import type { Task } from "../core/task.js";
import type { EpisodeResult } from "../rollout/types.js";
import { POLICY_ROLES, roleWiseAdvantages, type AdvantageOptions, type GroupResult } from "./advantages.js";
import { packByTokenBudget, rowToSequence, weightByAggregation } from "./batching.js";
import {
  checkpointDir,
  latestCheckpoint,
  modelDir,
  truncateJsonl,
  writeLoopState,
  type LoopState,
} from "./checkpoint.js";
import type { LoopConfig } from "./config.js";
import type { ForwardBackwardResult, LossOptions, TrainEngine, TrainSequence } from "./engine.js";
import { learningRate } from "./lr-schedule.js";
import {
  ratioMetrics,
  rolloutMetrics,
  type EvalMetrics,
  type OffPolicyMetrics,
  type StepMetrics,
} from "./step-metrics.js";
import { samplingPosition, tasksForStep } from "./task-sampler.js";

/**
 * The RL loop (ARCHITECTURE.md; reads top to bottom like CleanRL's ppo.py): for each step, sample
 * groups → score (inside the rollouts) → role-wise advantages → batches → forward_backward →
 * optim_step → log → checkpoint → eval. The engine, the rollouts and the evaluation are
 * interfaces, so tests drive the loop with fakes.
 */

/** Runs the G episodes of each task with the current policy (rollout/ + reward/). */
export interface EpisodeSampler {
  sampleGroups(
    tasks: Task[],
    opts: { groupSize: number; step: number },
  ): Promise<{ groups: EpisodeResult[][]; judgeSeconds?: number; offPolicy?: OffPolicyMetrics }>;
}

/** Held-out evaluation on real environments. */
export interface Evaluator {
  evaluate(step: number): Promise<EvalMetrics>;
}

export interface TrainLoopDeps {
  /** The engine that trains each role; the same object for both when the model is shared. */
  engines: Record<PolicyRole, TrainEngine>;
  sampler: EpisodeSampler;
  evaluator?: Evaluator;
  /**
   * Brings a dead worker back (the engines' supervisor restarts it); the loop then reloads the
   * last checkpoint and continues after it. Absent: a dead worker ends the run.
   */
  recover?: () => Promise<void>;
  /** Called with each step's metrics after they are written (progress bars). */
  onStep?: (m: StepMetrics) => void;
  /** Called after each step has been logged and (if due) checkpointed; tests throw here to simulate a kill. */
  afterStep?: (step: number) => void | Promise<void>;
  /**
   * How many times the worker(s) have been restarted so far (the supervisor's count). A change
   * during a step means the weights were lost mid-step, even if every call later succeeded.
   */
  restartCount?: () => number;
  /** Worker restarts allowed over the run (default 3). */
  maxRestarts?: number;
  /**
   * Runs once on a fresh start, before step 1 (e.g. SFT warm-up); its result is saved as the
   * `step-0` checkpoint, so a resume or a restarted worker never redoes or loses it.
   */
  warmup?: () => Promise<void>;
}

export interface TrainLoopOptions {
  config: LoopConfig;
  tasks: Task[];
  outDir: string;
  resume: boolean;
}

export interface TrainSummary {
  out_dir: string;
  first_step: number;
  last_step: number;
  steps: number;
  final_checkpoint: string | null;
  restarts: number;
  last: StepMetrics | null;
  eval: EvalMetrics | null;
}

export async function runTrainLoop(opts: TrainLoopOptions, deps: TrainLoopDeps): Promise<TrainSummary> {
  const { config: c, tasks, outDir } = opts;
  // Sizes and options derived from the config, computed once.
  const metricsPath = join(outDir, "metrics.jsonl");
  const shared = deps.engines.act === deps.engines.rehearse;
  const trainRoles: Record<PolicyRole, boolean> = {
    act: c.roles.act === "train",
    rehearse: c.roles.rehearse === "train",
  };
  const advOpts: AdvantageOptions = {
    normalizeStd: c.normalize_std,
    eps: c.std_eps,
    trainRoles,
    zeroVariance: c.zero_variance_groups,
    emptyResponseReward: c.empty_response_reward,
    rehearseBaseline: c.rehearse_baseline,
  };
  const loss: LossOptions = {
    fn: c.loss.fn,
    clipLow: c.loss.clip_low,
    clipHigh: c.loss.clip_high,
    ...(c.loss.kl_coef > 0 ? { klCoef: c.loss.kl_coef } : {}),
    ...(c.loss.tis_cap !== undefined ? { tisCap: c.loss.tis_cap } : {}),
    // logprobs at the temperature the rollouts sampled at, so the first update's ratio is 1
    // (a greedy rollout, temperature 0, samples from the untempered distribution's argmax)
    ...(c.temperature > 0 ? { temperature: c.temperature } : {}),
  };
  // Each distinct engine with the roles it trains (one entry when the model is shared).
  const engineRoles = new Map<TrainEngine, PolicyRole[]>();
  for (const r of POLICY_ROLES)
    if (trainRoles[r]) engineRoles.set(deps.engines[r], [...(engineRoles.get(deps.engines[r]) ?? []), r]);
  const maxRestarts = deps.maxRestarts ?? 3;
  mkdirSync(outDir, { recursive: true });

  let state: LoopState = await startState();
  // Worker restarts seen so far: any new one means updates since the last checkpoint were lost.
  let seenRestarts = deps.restartCount?.();
  const firstStep = state.step + 1;
  let restarts = 0;
  let restartsThisStep = 0;
  let last: StepMetrics | null = null;
  let lastEval: EvalMetrics | null = null;
  let finalCheckpoint: string | null = latestCheckpoint(outDir)?.dir ?? null;

  while (state.step < c.steps) {
    const step = state.step + 1;
    let m: StepMetrics;
    try {
      m = await runStep(step);
    } catch (e) {
      if (!isWorkerDeath(e) || !deps.recover || restarts >= maxRestarts) throw e;
      // A dead worker: restart it, reload the last checkpoint, redo the steps after it.
      restarts++;
      restartsThisStep++;
      await deps.recover();
      state = await restoreLatest();
      seenRestarts = deps.restartCount?.();
      continue;
    }
    m.restarts = restartsThisStep;
    restartsThisStep = 0;

    // log
    appendFileSync(metricsPath, JSON.stringify(m) + "\n");
    state = {
      step,
      sampling_position: samplingPosition(step, c.tasks_per_step),
      metrics_lines: state.metrics_lines + 1,
      seed: c.seed,
    };
    last = m;
    if (m.eval) lastEval = m.eval;

    // checkpoint
    if (step % c.checkpoint_every === 0 || step === c.steps) finalCheckpoint = await saveCheckpoint(state);
    deps.onStep?.(m);
    await deps.afterStep?.(step);
  }

  return {
    out_dir: outDir,
    first_step: firstStep,
    last_step: state.step,
    steps: c.steps,
    final_checkpoint: finalCheckpoint,
    restarts,
    last,
    eval: lastEval,
  };

  /** One optimizer step: sample → advantages → batches → forward_backward → optim_step (→ eval). */
  async function runStep(step: number): Promise<StepMetrics> {
    const lr = learningRate(step, {
      peak: c.lr,
      totalSteps: c.steps,
      warmupSteps: c.warmup_steps,
      schedule: c.lr_schedule,
    });

    // 1. sample groups (the rollouts also score them: rules and the judge)
    const t0 = performance.now();
    const stepTasks = tasksForStep(tasks, step, c.tasks_per_step, c.seed);
    const sampled = await deps.sampler.sampleGroups(stepTasks, { groupSize: c.group_size, step });
    // An episode cut short by a model/endpoint failure says nothing about the policy: mask it.
    const groups = sampled.groups.map((g) =>
      g.map((e) => (e.endReason === "model_error" ? { ...e, masked: true } : e)),
    );
    const tSample = (performance.now() - t0) / 1000;

    // 2. role-wise advantages per task group
    const advantages: GroupResult[] = groups.map((g) => roleWiseAdvantages(g, advOpts));

    // 3. batches → forward_backward → one optim_step per engine
    const t1 = performance.now();
    let fbCalls = 0;
    let lossSum = 0;
    const tis = { weight: 0, capped: 0, tokens: 0 };
    let gradNorm: number | null = null;
    let optimSkipped = false;
    const ratios: Array<{
      role: PolicyRole;
      ratio: NonNullable<ForwardBackwardResult["sequenceMetrics"]>[number];
    }> = [];
    for (const [engine, roles] of engineRoles) {
      const seqs: TrainSequence[] = [];
      const roleOfSeq: PolicyRole[] = [];
      advantages.forEach((g, gi) => {
        for (const r of g.rows) {
          const row = groups[gi]![r.episode]!.rows[r.row]!;
          // an empty completion has no target token to learn from
          if (!r.trainable || !roles.includes(r.role) || row.tokenIds.length === 0) continue;
          seqs.push(rowToSequence(row, r.advantage));
          roleOfSeq.push(r.role);
        }
      });
      if (seqs.length === 0) {
        optimSkipped = true; // nothing to learn from (masked, frozen or empty)
        continue;
      }
      // weights over the engine's whole step, then packing: the split into calls changes nothing
      const weighted = weightByAggregation(seqs, c.loss_agg_mode).map((s, i) => ({
        s,
        role: roleOfSeq[i]!,
        tokenIds: s.tokenIds,
      }));
      const calls = packByTokenBudget(weighted, c.token_budget).calls;
      for (const call of calls) {
        const res = await engine.forwardBackward({ sequences: call.map((w) => w.s), loss });
        lossSum += res.loss;
        fbCalls++;
        const n = res.metrics.num_tokens ?? 0;
        if (res.metrics.tis_weight_mean !== undefined) {
          tis.weight += res.metrics.tis_weight_mean * n;
          tis.capped += (res.metrics.tis_capped_fraction ?? 0) * n;
          tis.tokens += n;
        }
        res.sequenceMetrics?.forEach((ratio, i) => ratios.push({ role: call[i]!.role, ratio }));
      }
      const opt = await engine.optimStep({ lr, weightDecay: c.weight_decay, maxGradNorm: c.max_grad_norm });
      gradNorm = opt.gradNorm === null || Number.isNaN(opt.gradNorm) ? gradNorm : opt.gradNorm;
      optimSkipped = optimSkipped || opt.skipped === true;
    }
    const tTrain = (performance.now() - t1) / 1000;
    if (deps.restartCount && deps.restartCount() !== seenRestarts) {
      throw new EnvaceError(
        "WORKER_UNAVAILABLE",
        `the worker restarted since the last good step (now step ${step}): updates were lost`,
      );
    }

    // 4. held-out evaluation on real environments
    const due = (c.eval_every > 0 && step % c.eval_every === 0) || step === c.steps;
    const evalMetrics = deps.evaluator && due ? await deps.evaluator.evaluate(step) : undefined;

    return {
      step,
      timestamp: new Date().toISOString(),
      lr,
      ...rolloutMetrics(groups, advantages),
      forward_backward_calls: fbCalls,
      // Each call returns its part of the step's aggregated loss: their sum is the step's loss.
      loss: fbCalls > 0 ? lossSum : null,
      ...ratioMetrics(ratios),
      ...(tis.tokens > 0
        ? { tis: { weight_mean: tis.weight / tis.tokens, capped_fraction: tis.capped / tis.tokens } }
        : {}),
      grad_norm: gradNorm,
      optim_skipped: optimSkipped,
      restarts: 0,
      time: { sample: tSample, train: tTrain, judge: sampled.judgeSeconds ?? 0 },
      ...(sampled.offPolicy ? { off_policy: sampled.offPolicy } : {}),
      ...(evalMetrics ? { eval: evalMetrics } : {}),
    };
  }

  async function saveCheckpoint(s: LoopState): Promise<string> {
    const dir = checkpointDir(outDir, s.step);
    mkdirSync(dir, { recursive: true });
    if (shared) await deps.engines.act.save(modelDir(dir, null), { optimizer: true });
    else for (const r of POLICY_ROLES) await deps.engines[r].save(modelDir(dir, r), { optimizer: true });
    writeLoopState(dir, s); // last: a folder without state.json is an interrupted save
    return dir;
  }

  /** The state to start from: the latest checkpoint when resuming, else a fresh run (+ warm-up). */
  async function startState(): Promise<LoopState> {
    if (opts.resume && latestCheckpoint(outDir)) return restoreLatest();
    if (!opts.resume && latestCheckpoint(outDir)) {
      throw new EnvaceError(
        "INVALID_CONFIG",
        `${outDir} already holds checkpoints: pass --resume, or choose another --out`,
      );
    }
    writeFileSync(metricsPath, ""); // a fresh run starts a fresh log
    const fresh: LoopState = { step: 0, sampling_position: 0, metrics_lines: 0, seed: c.seed };
    if (deps.warmup) {
      await deps.warmup();
      await saveCheckpoint(fresh);
    }
    return fresh;
  }

  /** Load the latest complete checkpoint into the engines and cut the log back to it. */
  async function restoreLatest(): Promise<LoopState> {
    const ck = latestCheckpoint(outDir);
    if (!ck) {
      // Nothing saved yet: a restarted worker is the freshly initialised model, so start over.
      if (existsSync(metricsPath)) truncateJsonl(metricsPath, 0);
      return { step: 0, sampling_position: 0, metrics_lines: 0, seed: c.seed };
    }
    if (shared) await deps.engines.act.load(modelDir(ck.dir, null), { optimizer: true });
    else for (const r of POLICY_ROLES) await deps.engines[r].load(modelDir(ck.dir, r), { optimizer: true });
    truncateJsonl(metricsPath, ck.state.metrics_lines);
    return ck.state;
  }
}

/** A worker that stopped answering (as opposed to one that rejected a request). */
function isWorkerDeath(e: unknown): boolean {
  return isEnvaceError(e, "WORKER_UNAVAILABLE");
}
