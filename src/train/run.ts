import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { PolicyRole } from "../core/messages.js";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import { OpenAIChatModel } from "../engines/openai-chat-model.js";
import { WorkerClient } from "../engines/worker-client.js";
import { VllmPolicySync } from "../engines/vllm-sync.js";
import { startWorker, type StartWorkerOptions, type WorkerProcess } from "../engines/worker-supervisor.js";
import type { WorkerModelOptions } from "../engines/worker-args.js";
import { llmJudge } from "../reward/llm-judge.js";
import type { Judge } from "../reward/types.js";
import { boundedChatModel } from "../rollout/bounded-model.js";
import { realResponder } from "../rollout/real-responder.js";
import { rehearsalResponder, simulatorResponder } from "../rollout/model-responder.js";
import type { Responder } from "../rollout/responder.js";
import type { EpisodeResult } from "../rollout/types.js";
import { latestCheckpoint, modelDir } from "./checkpoint.js";
import type { TrainConfig } from "./config.js";
import { deterministicConfig, deterministicWarnings } from "./deterministic.js";
import { environmentForTask } from "./environments.js";
import { realEnvEvaluator } from "./evaluator.js";
import { preflightTrain } from "./preflight.js";
import { sftExamplesForTasks } from "./trace-sft.js";
import { runTrainLoop, type EpisodeSampler, type TrainSummary } from "./loop.js";
import { rolloutSampler } from "./rollout-sampler.js";
import { runSft, type SftExample } from "./sft.js";
import type { StepMetrics } from "./step-metrics.js";
import { mulberry32, tasksForStep } from "./task-sampler.js";
import { loadTaskSource } from "./task-sources.js";
import { tinyModelCorpus, tinyModelVocabulary } from "./tiny-model-text.js";

export interface TrainRunOptions {
  outDir: string;
  resume: boolean;
  onStep?: (m: StepMetrics) => void;
  onEpisode?: (done: number, total: number, last: EpisodeResult) => void;
  /** Each SFT warm-up step. */
  onSftStep?: (s: { step: number; steps: number; loss: number; lr: number }) => void;
  /** Called once the workers we started are up (tests use it to kill one). */
  onWorkers?: (workers: readonly WorkerProcess[]) => void;
  /** Worker log lines (default: dropped). */
  onWorkerLog?: (line: string) => void;
  /** Problems found before training that do not stop it (preflight.ts). */
  onWarning?: (message: string) => void;
}

type WorkerSpec = NonNullable<TrainConfig["worker"]>;
type SftStep = NonNullable<TrainRunOptions["onSftStep"]>;

/**
 * `envace train` as a library call: load tasks, start (or connect to) the policy's worker(s) and
 * the simulator, wire rollouts, judge and evaluation, run the loop, stop the workers.
 */
export async function trainFromConfig(config: TrainConfig, opts: TrainRunOptions): Promise<TrainSummary> {
  const c = deterministicConfig(config); // unchanged unless `deterministic: true`
  // Absolute: the worker saves checkpoints from its own working directory.
  const out = resolve(opts.outDir);
  mkdirSync(out, { recursive: true });
  const tasks = await loadTaskSource(c.tasks);
  const evalTasks = c.eval_tasks ? await loadTaskSource(c.eval_tasks) : [];
  // Refuse a run that could learn nothing before any worker starts.
  for (const w of preflightTrain(c, tasks, evalTasks).warnings) opts.onWarning?.(w);
  for (const w of deterministicWarnings(c)) opts.onWarning?.(w);
  // On resume a tiny model restarts from its checkpoint (weights and tokenizer); the loop then
  // loads the optimizer state too.
  const resumeFrom = opts.resume ? latestCheckpoint(out) : null;

  const workers: WorkerProcess[] = [];
  const start = async (spec: WorkerModelOptions, proc: WorkerSpec): Promise<WorkerClient> => {
    const w = await startWorker({
      ...spec,
      ...workerProcess(proc),
      port: 0,
      restartOnCrash: true,
      checkpointRoot: out, // the worker saves and loads only inside the run directory
      ...(opts.onWorkerLog ? { onLog: opts.onWorkerLog } : {}),
    });
    workers.push(w);
    return w.client;
  };
  try {
    // The policy: one worker (shared model) or one per role.
    const clients = {} as Record<PolicyRole, WorkerClient>;
    if (c.endpoint !== undefined) {
      clients.act = clients.rehearse = new WorkerClient(c.endpoint);
    } else {
      const spec = (role: PolicyRole | null): WorkerModelOptions =>
        resumeFrom && c.worker!.init !== undefined
          ? { model: modelDir(resumeFrom.dir, role) }
          : workerModel(c.worker!, out, tasks, evalTasks);
      clients.act = await start(spec(c.shared_model ? null : "act"), c.worker!);
      clients.rehearse = c.shared_model ? clients.act : await start(spec("rehearse"), c.worker!);
    }
    const actPolicy = boundedChatModel(clients.act.chatModel(), c.concurrency);
    const policies: Record<PolicyRole, ChatModel> = {
      act: actPolicy,
      rehearse:
        clients.rehearse === clients.act
          ? actPolicy
          : boundedChatModel(clients.rehearse.chatModel(), c.concurrency),
    };
    // vLLM rollouts: the servers load the worker's published weights before each step's rollouts;
    // evaluation stays on the worker (its weights are always the latest).
    const vllm = c.rollout
      ? new VllmPolicySync(c.rollout, clients.act, {
          outDir: out,
          ...(opts.onWarning ? { onWarning: opts.onWarning } : {}),
        })
      : undefined;
    const vllmPolicy = vllm ? boundedChatModel(vllm.policy, c.concurrency) : undefined;
    const judge: Judge | undefined = c.judge ? llmJudge(endpointModel(c.judge)) : undefined;

    // The frozen simulator (simulator mode): an endpoint, or a worker of ours, fine-tuned once.
    const simulatorSaved = join(out, "simulator-model");
    let simulatorClient: WorkerClient | undefined;
    let simulator: ChatModel | undefined;
    if (c.mode === "simulator") {
      const s = c.simulator!;
      if ("worker" in s) {
        const spec =
          existsSync(join(simulatorSaved, "config.json")) && opts.resume
            ? { model: simulatorSaved }
            : workerModel(s.worker, out, tasks, evalTasks);
        simulatorClient = await start(spec, s.worker);
        simulator = simulatorClient.chatModel();
      } else simulator = endpointModel(s);
    }

    const modelOpts = {
      variant: c.rehearsal_prompt,
      think: c.rehearsal_think,
      temperature: c.temperature,
      maxTokens: c.limits.max_tokens,
    };
    const responder: Responder =
      c.mode === "rehearsal"
        ? rehearsalResponder(vllmPolicy ?? policies.rehearse, modelOpts)
        : c.mode === "simulator"
          ? simulatorResponder(boundedChatModel(simulator!, c.concurrency), { ...modelOpts, temperature: 0 })
          : realResponder(environmentForTask);

    opts.onWorkers?.(workers);
    const sft = c.sft;
    const warmup = sft
      ? async () => {
          const examples = sftExamplesForTasks(tasks, { roles: sft.roles, variant: c.rehearsal_prompt });
          const sftOpts = {
            epochs: sft.epochs,
            batchSize: sft.batch_size,
            lr: sft.lr,
            tokenBudget: c.token_budget,
            maxGradNorm: c.max_grad_norm,
          };
          if (clients.act === clients.rehearse) {
            // Shared model: one run over both roles' examples, mixed.
            await sftRun(
              clients.act,
              shuffled([...examples.act, ...examples.rehearse], c.seed),
              sftOpts,
              opts.onSftStep,
            );
          } else {
            await sftRun(clients.act, examples.act, sftOpts, opts.onSftStep);
            await sftRun(clients.rehearse, examples.rehearse, sftOpts, opts.onSftStep);
          }
          if (simulatorClient) {
            // The simulator learns the real responses once, then stays frozen.
            const rehearse = sftExamplesForTasks(tasks, {
              roles: ["rehearse"],
              variant: c.rehearsal_prompt,
            }).rehearse;
            await sftRun(simulatorClient, rehearse, sftOpts, opts.onSftStep);
            await simulatorClient.save(simulatorSaved, { optimizer: false });
          }
        }
      : undefined;

    return await runTrainLoop(
      { config: c, tasks, outDir: out, resume: opts.resume },
      {
        engines: { act: clients.act, rehearse: clients.rehearse },
        sampler: withVllm(
          vllm,
          { tasks, config: c },
          rolloutSampler({
            policy: vllmPolicy ?? policies.act,
            responder,
            ...(judge ? { judge } : {}),
            config: c,
            ...(opts.onEpisode ? { onEpisode: opts.onEpisode } : {}),
          }),
        ),
        ...(evalTasks.length > 0
          ? {
              evaluator: realEnvEvaluator({
                policy: policies.act,
                tasks: evalTasks,
                envFactory: environmentForTask,
                ...(judge ? { judge } : {}),
                config: c,
              }),
            }
          : {}),
        ...(workers.length > 0
          ? {
              recover: async () => void (await Promise.all(workers.map((w) => w.waitRecovered()))),
              restartCount: () => workers.reduce((a, w) => a + w.restarts, 0),
            }
          : {}),
        ...(opts.onStep ? { onStep: opts.onStep } : {}),
        ...(warmup ? { warmup } : {}),
      },
    );
  } finally {
    await Promise.all(workers.map((w) => w.stop()));
  }
}

async function sftRun(
  client: WorkerClient,
  exs: SftExample[],
  o: { epochs: number; batchSize: number; lr: number; tokenBudget: number; maxGradNorm: number },
  onStep: SftStep | undefined,
): Promise<void> {
  if (exs.length === 0) return;
  const steps = Math.ceil(exs.length / o.batchSize) * o.epochs;
  await runSft(client, client, exs, {
    ...o,
    warmupSteps: Math.ceil(steps / 10),
    schedule: "cosine",
    ...(onStep ? { onStep } : {}),
  });
}

/**
 * The sampler, publishing and loading the weights into the vLLM servers first when they are used;
 * with `rollout.async` it may sample a step ahead, choosing its tasks as the loop does.
 */
function withVllm(
  vllm: VllmPolicySync | undefined,
  run: { tasks: Task[]; config: TrainConfig },
  s: EpisodeSampler,
): EpisodeSampler {
  const c = run.config;
  return vllm
    ? vllm.wrap(s, {
        tasksFor: (step) => tasksForStep(run.tasks, step, c.tasks_per_step, c.seed),
        key: (ts) => ts.map((t) => t.id).join("\n"),
        lastStep: c.steps,
      })
    : s;
}

function endpointModel(e: { base_url: string; model: string; api_key?: string }): ChatModel {
  return new OpenAIChatModel({
    baseURL: e.base_url,
    model: e.model,
    ...(e.api_key ? { apiKey: e.api_key } : {}),
  });
}

/** How the config asks a worker to run (processes, parallelism, device, dtype, extra flags). */
function workerProcess(w: WorkerSpec): Partial<StartWorkerOptions> {
  return {
    ...(w.nproc !== undefined ? { nproc: w.nproc } : {}),
    ...(w.parallel !== undefined ? { parallel: w.parallel } : {}),
    ...(w.device !== undefined ? { device: w.device } : {}),
    ...(w.dtype !== undefined ? { dtype: w.dtype } : {}),
    ...(w.args !== undefined ? { extraArgs: w.args } : {}),
  };
}

/**
 * How to start a worker. For the tiny model without a corpus, one is written from the tasks (a
 * registered task kind supplies its own corpus and whole-token vocabulary, e.g. toolworld's), so a
 * config needs no extra files.
 */
function workerModel(
  w: WorkerSpec,
  outDir: string,
  tasks: readonly Task[],
  evalTasks: readonly Task[],
): WorkerModelOptions {
  if (w.model !== undefined) return { model: w.model, ...(w.lora_rank ? { loraRank: w.lora_rank } : {}) };
  const init = w.init!;
  const all = [...tasks, ...evalTasks];
  let corpus = init.corpus;
  if (corpus === undefined) {
    corpus = join(outDir, "corpus.txt");
    writeFileSync(corpus, tinyModelCorpus(all));
  }
  let vocabExtra = init.vocab_extra;
  const words = vocabExtra === undefined ? tinyModelVocabulary(all) : [];
  if (words.length > 0) {
    vocabExtra = join(outDir, "vocab-extra.txt");
    writeFileSync(vocabExtra, words.join("\n") + "\n");
  }
  return { init: { corpus, size: init.size, seed: init.seed, ...(vocabExtra ? { vocabExtra } : {}) } };
}

/** A seeded shuffle (SFT batches should mix roles and tasks). */
function shuffled<T>(xs: T[], seed: number): T[] {
  const rand = mulberry32(seed);
  for (let i = xs.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [xs[i], xs[j]] = [xs[j]!, xs[i]!];
  }
  return xs;
}
