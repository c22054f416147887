import { z } from "zod";

/**
 * The train config's `rollout:` block for sampling training rollouts on vLLM servers that follow
 * the trainer (README, "Rollouts on vLLM"). Absent: rollouts sample from the policy's worker.
 */
export const VllmRolloutConfigZ = z
  .object({
    /** The rollout engine: `vllm`. */
    engine: z.literal("vllm"),
    /** The vLLM servers (OpenAI roots with `/v1`), started with LoRA runtime updating or dev mode. */
    endpoints: z
      .array(
        z
          .object({
            /** e.g. http://127.0.0.1:8001/v1 */
            base_url: z.string().url(),
            /** The server's `--api-key`, if it has one. */
            api_key: z.string().optional(),
          })
          .strict(),
      )
      .min(1),
    /** The name the servers serve the base weights under (`--served-model-name`; default: the model path). */
    base_model: z.string().min(1),
    /** Name of published versions (`<run_name>@<step>`); default: the output folder's name. */
    run_name: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, "letters, digits, '.', '_' or '-' (at most 64)")
      .optional(),
    /** Folder (inside the run directory) the worker publishes versions to. */
    publish_dir: z.string().min(1).default("published"),
    /** Published versions kept on disk. */
    keep_published: z.number().int().min(1).default(3),
    /** LoRA versions each server keeps loaded. */
    keep_loaded: z.number().int().min(1).default(2),
    /**
     * How many optimizer steps the sampler may lag behind the trainer: 0 (default) publishes and
     * loads the weights before every step (on-policy); k > 0 syncs only every k+1 steps, and the
     * loss's importance ratio (sampling logprobs from vLLM) corrects for the lag.
     */
    max_off_policy_steps: z.number().int().nonnegative().default(0),
    /**
     * Sample the next step's rollouts while this step trains (off by default). Those rollouts use
     * the version already loaded, one step older, so this needs `max_off_policy_steps` >= 1; a step
     * that must sync first is sampled after the update, as without `async`.
     */
    async: z.boolean().default(false),
    /** Keep each episode on one server (its prefix cache). */
    sticky: z.boolean().default(true),
    /** Attempts after the first to load a version into one server. */
    sync_retries: z.number().int().nonnegative().default(2),
  })
  .strict()
  .refine((c) => !c.async || c.max_off_policy_steps >= 1, {
    path: ["async"],
    message: "async rollouts sample one step behind the trainer: set max_off_policy_steps to 1 or more",
  });

export type VllmRolloutConfig = z.infer<typeof VllmRolloutConfigZ>;
