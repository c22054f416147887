import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { z } from "zod";
import { EnvaceError } from "../core/errors.js";
import { parseYamlSafe } from "../core/safe-yaml.js";
import { unknownGeneratorMessage } from "../envs/task-generator-registry.js";
import { VllmRolloutConfigZ } from "../engines/vllm-config.js";

/**
 * `envace train` configuration: one flat, validated object (YAML or JSON), snake_case as written in
 * the file, a one-line doc per field, defaults that run. Relative paths are resolved against the
 * config file's folder by `loadTrainConfig`.
 */

const RoleModeZ = z.enum(["train", "frozen"]);

/** A chat endpoint (OpenAI-compatible): a frozen simulator or the judge. */
const EndpointZ = z
  .object({
    /** Server root including `/v1`. */
    base_url: z.string().url(),
    /** Model name sent in requests. */
    model: z.string().min(1),
    /** Optional API key (otherwise $OPENAI_API_KEY or a placeholder for local servers). */
    api_key: z.string().optional(),
  })
  .strict();

/**
 * Where tasks come from: JSONL files, or a registered task generator (`toolworld`, registered by
 * `src/envs/toolworld/register.ts`, which the CLI and the package entry import).
 */
const TaskSourceZ = z.union([
  z.string().min(1),
  z.array(z.string().min(1)).min(1),
  z
    .object({
      /** Generate tasks instead of reading a file: a registered generator's name. */
      generator: z
        .string()
        .min(1)
        .superRefine((name, ctx) => {
          const unknown = unknownGeneratorMessage(name);
          if (unknown !== null) ctx.addIssue({ code: "custom", message: unknown });
        }),
      /** Domains to draw from (all of the generator's when omitted). */
      domains: z.array(z.string()).optional(),
      /** Tasks to generate per domain. */
      count: z.number().int().positive(),
      /** Generator seed. */
      seed: z.number().int().default(0),
      /** `train` or `heldout` requests (the two never share a task). */
      split: z.enum(["train", "heldout"]).default("train"),
    })
    .strict(),
]);

/** How a worker we start runs (both model kinds). */
const WorkerProcessShape = {
  /** Data-parallel processes under torchrun (default 1). */
  nproc: z.number().int().positive().optional(),
  /** With nproc > 1: ddp, fsdp, or auto (fsdp on CUDA, ddp on CPU). */
  parallel: z.enum(["auto", "ddp", "fsdp"]).optional(),
  /** cpu, cuda, cuda:N or auto (default: CUDA when present). */
  device: z.string().min(1).optional(),
  /** Weight dtype (default float32). */
  dtype: z.enum(["float32", "bfloat16", "float16"]).optional(),
  /** More `envace_worker serve` flags, e.g. ["--micro-batch-tokens", "16384"]. */
  args: z.array(z.string()).optional(),
};

/**
 * The trained policy's worker: a tiny model (`init`) or a Hugging Face directory (`model`), and how
 * it runs. One object with a check rather than a union of two, so that errors name the field.
 */
const WorkerZ = z
  .object({
    /** Build the tiny Qwen3-architecture model from a corpus (CPU runs). */
    init: z
      .object({
        /** Corpus file for the BPE tokenizer (default: written from the training tasks). */
        corpus: z.string().optional(),
        /** Model size: xs | s | m. */
        size: z.enum(["xs", "s", "m"]).default("xs"),
        /** File with one whole token per line added to the vocabulary (ids, names). */
        vocab_extra: z.string().optional(),
        /** Initialisation seed. */
        seed: z.number().int().default(0),
      })
      .strict()
      .optional(),
    /** Hugging Face model directory. */
    model: z.string().min(1).optional(),
    /** LoRA rank with `model` (0 or omitted: full fine-tuning). */
    lora_rank: z.number().int().nonnegative().optional(),
    ...WorkerProcessShape,
  })
  .strict()
  .superRefine((w, ctx) => {
    if ((w.init === undefined) === (w.model === undefined)) {
      ctx.addIssue({
        code: "custom",
        path: [],
        message: "give exactly one of `init` (tiny model) and `model`",
      });
    }
    if (w.lora_rank !== undefined && w.model === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["lora_rank"],
        message: "LoRA needs `model` (a Hugging Face directory)",
      });
    }
  });

const TrainConfigObjectZ = z
  .object({
    /** The policy's worker to start. Exactly one of `worker` and `endpoint`. */
    worker: WorkerZ.optional(),
    /** URL of an already running worker (root, e.g. http://127.0.0.1:8000). */
    endpoint: z.string().url().optional(),
    /**
     * Where training rollouts sample: absent, the policy's worker; `{engine: vllm, endpoints, …}`,
     * vLLM servers that hot-load the weights the worker publishes before each step
     * (src/engines/vllm-config.ts documents each field).
     */
    rollout: VllmRolloutConfigZ.optional(),
    /** Training tasks. */
    tasks: TaskSourceZ,
    /** Held-out tasks for evaluation on real environments (none: no evaluation). */
    eval_tasks: TaskSourceZ.optional(),
    /** How tool calls are answered during training rollouts. */
    mode: z.enum(["rehearsal", "simulator", "real"]).default("rehearsal"),
    /**
     * The frozen simulator (required in `simulator` mode): an endpoint, or a worker we start (with
     * `sft`, it is first fine-tuned on the rehearsing examples, then frozen).
     */
    simulator: z.union([EndpointZ, z.object({ worker: WorkerZ }).strict()]).optional(),
    /** Episodes per task (G). Reference: 4 (run_checklist_share.sh `group_size`). */
    group_size: z.number().int().min(1).default(4),
    /** Task groups per optimizer step. */
    tasks_per_step: z.number().int().min(1).default(2),
    /** Number of optimizer steps. */
    steps: z.number().int().min(1).default(10),
    /** Peak learning rate. Reference: 1e-6 (`actor_optim_lr`). */
    lr: z.number().positive().default(1e-6),
    /** Linear warm-up steps (from lr/warmup to lr). */
    warmup_steps: z.number().int().nonnegative().default(0),
    /** Learning-rate schedule after warm-up: constant, or cosine decay to 0 at the last step. */
    lr_schedule: z.enum(["constant", "cosine"]).default("constant"),
    /** AdamW weight decay. Reference: 0.01 (verl's actor optim default). */
    weight_decay: z.number().nonnegative().default(0.01),
    /** Gradient clipping (global norm). */
    max_grad_norm: z.number().positive().default(1),
    /** Policy loss. */
    loss: z
      .object({
        /** `ppo` (clipped) or `importance_sampling` (unclipped REINFORCE with p/q). */
        fn: z.enum(["ppo", "importance_sampling"]).default("ppo"),
        /** Lower clip bound ε_low: ratio ≥ 1 − clip_low. */
        clip_low: z.number().nonnegative().default(0.2),
        /** Upper clip bound ε_high: ratio ≤ 1 + clip_high. Reference: 0.2 (verl's clip_ratio). */
        clip_high: z.number().nonnegative().default(0.2),
        /** KL-to-reference coefficient (0: none, as the reference's use_kl_loss=False). */
        kl_coef: z.number().nonnegative().default(0),
        /**
         * Truncated importance sampling cap, for rollouts sampled by another engine (vLLM): PPO's old
         * policy becomes the trainer's own logprobs and each token is weighted by
         * min(π_trainer/π_sampler, tis_cap). Unset: none (the sampler is the trainer).
         */
        tis_cap: z.number().min(1).optional(),
      })
      .strict()
      .default({ fn: "ppo", clip_low: 0.2, clip_high: 0.2, kl_coef: 0 }),
    /**
     * How token losses become the step's loss (verl's names). `seq-mean-token-mean` (default: what
     * the reference's micro-batch-1 `token-mean` computes): each row's mean, then the mean over rows;
     * `token-mean`: one mean over every trained token of the step; `seq-mean-token-sum`: each row's
     * sum, then the mean over rows.
     */
    loss_agg_mode: z
      .enum(["seq-mean-token-mean", "token-mean", "seq-mean-token-sum"])
      .default("seq-mean-token-mean"),
    /**
     * What an invalid actor call does: `end` (reference) ends the episode with 0 for the turn
     * (malformed call block, unknown tool, schema violation, unparsable rehearsal, rehearser
     * `error_tool_call` verdict); `retry` answers it with an error the actor can react to.
     */
    invalid_call: z.enum(["end", "retry"]).default("end"),
    /**
     * (group, role) groups whose rows all share one reward: `keep` (reference) leaves their rows in
     * the batch with advantage 0 (they count in the loss denominator); `drop` leaves them out.
     */
    zero_variance_groups: z.enum(["keep", "drop"]).default("keep"),
    /**
     * Reward of a row that sampled no token (it has nothing to train on but stays in its group's
     * baseline). Reference: 0 (no token to place the reward on).
     */
    empty_response_reward: z.number().default(0),
    /**
     * The rehearse role's GRPO baseline: `role` (reference) is the mean over the group's rehearse
     * rows; `call` the mean over its rehearse rows with the same prompt (the same call after the same
     * conversation), so a rehearsal is not credited with the outcome of the call it answers.
     */
    rehearse_baseline: z.enum(["role", "call"]).default("role"),
    /** SFT warm-up before step 1 on gold trajectories (toolworld tasks): acting and rehearsing. */
    sft: z
      .object({
        /** Passes over the SFT examples. */
        epochs: z.number().int().min(1).default(3),
        /** Peak learning rate (warm-up 10% of steps, then cosine). */
        lr: z.number().positive().default(1e-4),
        /** Examples per optimizer step. */
        batch_size: z.number().int().min(1).default(8),
        /** Which roles get SFT examples. */
        roles: z
          .array(z.enum(["act", "rehearse"]))
          .min(1)
          .default(["act", "rehearse"]),
      })
      .strict()
      .optional(),
    /** Divide advantages by the group's std (GRPO); false (reference: norm_adv_by_std_in_grpo=False): mean-centred only. */
    normalize_std: z.boolean().default(false),
    /** Epsilon added to the std. */
    std_eps: z.number().positive().default(1e-6),
    /** Which roles are trained; a frozen role contributes no rows. */
    roles: z
      .object({ act: RoleModeZ.default("train"), rehearse: RoleModeZ.default("train") })
      .strict()
      .default({ act: "train", rehearse: "train" }),
    /** One model for both roles (default) or a separate model per role. */
    shared_model: z.boolean().default(true),
    /** Rollout limits. */
    limits: z
      .object({
        /** Max assistant messages (act calls) before the episode ends. Reference: 30. */
        max_assistant_turns: z.number().int().min(1).default(30),
        /**
         * What `max_assistant_turns` counts: `episode` (reference: every act call of the episode,
         * checked after each reply) or `user_turn` (act calls within one user turn, checked before each).
         */
        turn_limit_scope: z.enum(["episode", "user_turn"]).default("episode"),
        /** Max tool calls in one assistant message; more ends the episode. Unset: no limit (the reference never enforces its knob). */
        max_parallel_calls: z.number().int().min(1).optional(),
        /** Max prompt + completion tokens of a model call; exceeding it ends the episode. Reference: max_model_len 20000. */
        context_budget: z.number().int().min(16).default(20000),
        /** Max tokens sampled per model call. Reference: max_response_length 8000. */
        max_tokens: z.number().int().min(1).default(8000),
      })
      .strict()
      .default({
        max_assistant_turns: 30,
        turn_limit_scope: "episode",
        context_budget: 20000,
        max_tokens: 8000,
      }),
    /** Max tokens per `forward_backward` call (rows are packed into calls within it). */
    token_budget: z.number().int().min(16).default(16384),
    /** LLM judge for standards without a rule (none: rule standards only). */
    judge: EndpointZ.optional(),
    /** Answer a call identical to a task example with the recorded result (off, as in the reference). */
    example_cache: z.boolean().default(false),
    /** Save a checkpoint every N steps (the last step is always saved). */
    checkpoint_every: z.number().int().min(1).default(5),
    /** Evaluate on `eval_tasks` every N steps (0: only at the end). */
    eval_every: z.number().int().nonnegative().default(0),
    /** Episodes per eval task. */
    eval_samples: z.number().int().min(1).default(1),
    /** Sampling temperature during evaluation (0: greedy). */
    eval_temperature: z.number().nonnegative().default(0),
    /**
     * Rehearsal prompt: `full` (the reference's), `compact` (tiny models with short contexts) or
     * `compact-related` (compact plus the conversation's earlier calls on the same values).
     */
    rehearsal_prompt: z.enum(["full", "compact", "compact-related"]).default("full"),
    /** Append Qwen3's `/think` switch to the rehearsal prompt (the reference trains with thinking on). */
    rehearsal_think: z.boolean().default(false),
    /** Seed for task sampling and rollouts. */
    seed: z.number().int().default(0),
    /** Max model calls in flight across all episodes. */
    concurrency: z.number().int().min(1).default(8),
    /**
     * Repeatable to the bit (`envace train --deterministic`): one model call at a time (concurrency
     * 1) and no prefix reuse in the workers envace starts, so two runs with the same seed and config
     * write the same metrics.jsonl up to its wall-clock fields (deterministic.ts).
     */
    deterministic: z.boolean().default(false),
    /** Sampling temperature during training (both roles); the loss computes logprobs at it too. Reference: 1. */
    temperature: z.number().nonnegative().default(1),
  })
  .strict();

/** Where the policy, tasks, simulator and judge come from: what a library caller supplies itself. */
const SOURCE_FIELDS = {
  worker: true,
  endpoint: true,
  tasks: true,
  eval_tasks: true,
  simulator: true,
  judge: true,
  rollout: true,
} as const;

/**
 * The RL loop's own settings (the train config without its sources), for callers that bring their
 * own engines, tasks and responder (`envace demo`).
 */
export const LoopConfigZ = TrainConfigObjectZ.omit(SOURCE_FIELDS).superRefine((c, ctx) => {
  if (c.roles.act === "frozen" && c.roles.rehearse === "frozen") {
    ctx.addIssue({ code: "custom", path: ["roles"], message: "at least one role must be trained" });
  }
});

export const TrainConfigZ = TrainConfigObjectZ.superRefine((c, ctx) => {
  if ((c.worker === undefined) === (c.endpoint === undefined)) {
    ctx.addIssue({
      code: "custom",
      path: ["worker"],
      message: "give exactly one of `worker` and `endpoint`",
    });
  }
  if (c.mode === "simulator" && c.simulator === undefined) {
    ctx.addIssue({ code: "custom", path: ["simulator"], message: "required when mode is `simulator`" });
  }
  if (c.roles.act === "frozen" && c.roles.rehearse === "frozen") {
    ctx.addIssue({ code: "custom", path: ["roles"], message: "at least one role must be trained" });
  }
  if (c.rollout !== undefined && !c.shared_model) {
    ctx.addIssue({
      code: "custom",
      path: ["rollout"],
      message: "vLLM rollouts serve one policy: they need shared_model: true",
    });
  }
  if (c.endpoint !== undefined && !c.shared_model) {
    ctx.addIssue({
      code: "custom",
      path: ["shared_model"],
      message: "separate models need `worker`, not `endpoint`",
    });
  }
});

export type TrainConfig = z.infer<typeof TrainConfigZ>;
export type LoopConfig = z.infer<typeof LoopConfigZ>;
export type TaskSource = z.infer<typeof TaskSourceZ>;

function parseWith<S extends z.ZodType>(schema: S, raw: unknown, what: string): z.infer<S> {
  const r = schema.safeParse(raw);
  if (!r.success) {
    const lines = r.error.issues.flatMap((i) => {
      const at = (extra: string[]) => [...i.path.map(String), ...extra].join(".") || "(root)";
      // an unknown key is named itself, so a typo points at the typo
      if (i.code === "unrecognized_keys") return i.keys.map((k) => `${at([k])}: unknown field`);
      return [`${at([])}: ${i.message}`];
    });
    throw new EnvaceError("INVALID_CONFIG", `invalid ${what}: ${lines.join("; ")}`, r.error.issues);
  }
  return r.data;
}

/** Validate a parsed config object; errors name the field (`INVALID_CONFIG`). */
export function parseTrainConfig(raw: unknown): TrainConfig {
  return parseWith(TrainConfigZ, raw, "train config");
}

/** Validate the loop's settings alone (defaults filled in as for a train config). */
export function parseLoopConfig(raw: unknown): LoopConfig {
  return parseWith(LoopConfigZ, raw, "loop config");
}

/** Read a YAML or JSON config file, validate it and resolve its paths against its folder. */
export function loadTrainConfig(path: string): TrainConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    throw new EnvaceError("INVALID_CONFIG", `cannot read config ${path}: ${(e as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = parseYamlSafe(text); // YAML is a superset of JSON; size, nesting and alias limits first
  } catch (e) {
    throw new EnvaceError("INVALID_CONFIG", `config ${path} is not valid YAML/JSON: ${(e as Error).message}`);
  }
  return resolveConfigPaths(parseTrainConfig(raw), dirname(resolve(path)));
}

export function resolveConfigPaths(c: TrainConfig, base: string): TrainConfig {
  const p = (x: string): string => (isAbsolute(x) ? x : resolve(base, x));
  const src = (s: TaskSource): TaskSource => (typeof s === "string" ? p(s) : Array.isArray(s) ? s.map(p) : s);
  const worker = c.worker === undefined ? undefined : resolveWorker(c.worker, p);
  const simWorker = c.simulator && "worker" in c.simulator ? resolveWorker(c.simulator.worker, p) : undefined;
  return {
    ...c,
    ...(worker ? { worker } : {}),
    ...(simWorker ? { simulator: { worker: simWorker } } : {}),
    tasks: src(c.tasks),
    ...(c.eval_tasks ? { eval_tasks: src(c.eval_tasks) } : {}),
  };
}

/** `./x`, `../x` and absolute paths are files; anything else may be a hub id and is left alone. */
function isLocalPath(x: string): boolean {
  return isAbsolute(x) || x.startsWith("./") || x.startsWith("../");
}

type WorkerSpec = NonNullable<TrainConfig["worker"]>;

function resolveWorker(w: WorkerSpec, p: (x: string) => string): WorkerSpec {
  if (w.model !== undefined) return { ...w, model: isLocalPath(w.model) ? p(w.model) : w.model };
  const init = w.init!;
  return {
    ...w,
    init: {
      ...init,
      ...(init.corpus ? { corpus: p(init.corpus) } : {}),
      ...(init.vocab_extra ? { vocab_extra: p(init.vocab_extra) } : {}),
    },
  };
}
