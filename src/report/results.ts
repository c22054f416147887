import { z } from "zod";
import { FAILURE_KINDS, type FailureKind } from "../bench/failure-kinds.js";

/**
 * The demo's results file (`results.json`) and its `--json` output: one schema, so that the report
 * can be rebuilt from a run directory and scripts can rely on the shape.
 */
export const MeanCIZ = z.object({
  mean: z.number().nullable(),
  ci95: z.number().nullable(),
  n: z.number().optional(),
});

export const FidelityZ = z.object({ exact: z.number(), f1: z.number(), n: z.number() });

/** A 95% interval [low, high]; null when it cannot be computed (one value). */
export const IntervalZ = z.tuple([z.number(), z.number()]).nullable();

export const ArmNameZ = z.enum(["sft", "real", "simulator", "envace", "envace_anchored", "real_all"]);

export const ArmResultZ = z.object({
  name: ArmNameZ,
  train_env_calls: z.number(),
  success: z.object({ env_domain: MeanCIZ, envless: MeanCIZ, heldout_domain: MeanCIZ }),
  reward_mean: z.number().nullable(),
  /** Rehearsal fidelity of this arm's model: exact JSON match and field-level F1 vs the real response. */
  fidelity: z
    .object({
      recorded: FidelityZ,
      own_calls: FidelityZ,
    })
    .nullable(),
  /**
   * Fidelity on calls whose answer no prompt showed (held-out recorded calls rehearsed with other
   * tasks' logs as evidence, and the policy's own calls): what rehearsal rests on during RL.
   */
  fidelity_unseen: FidelityZ.nullable().optional(),
  /**
   * The unseen calls by tool (exact-match share and count, pooled over seeds): which responses the
   * rehearser gets wrong, and so where a rehearsed world departs from the real one.
   */
  fidelity_unseen_by_tool: z.record(z.string(), z.object({ exact: z.number(), n: z.number() })).optional(),
  /**
   * Each seed's success per evaluation set (its tasks' mean; null where the seed had no task in
   * the set), in seed order (seed, seed + 1, …).
   */
  success_per_seed: z
    .object({
      env_domain: z.array(z.number().nullable()),
      envless: z.array(z.number().nullable()),
      heldout_domain: z.array(z.number().nullable()),
    })
    .optional(),
  /** 95% interval [low, high] of success per evaluation set (over tasks; over seeds with --seeds > 1). */
  success_ci: z.object({ env_domain: IntervalZ, envless: IntervalZ, heldout_domain: IntervalZ }).optional(),
  /**
   * The held-out domain's first act calls (mean over seeds): share naming one of its tools, the gold
   * first call's tool, and the gold first call exactly. Locates where transfer fails.
   */
  heldout_first_call: z
    .object({ domain_tool: z.number(), right_tool: z.number(), exact: z.number() })
    .optional(),
  /**
   * The env-less set's failed tasks by why they failed (`src/bench/failure-kinds.ts`), summed over
   * seeds, with the tasks counted: which of the past agent's mistakes the arm still makes.
   */
  envless_failures: z
    .object({
      episodes: z.number(),
      // the kinds in `FAILURE_KINDS`' order: results.md's columns follow it
      ...(Object.fromEntries(FAILURE_KINDS.map((k) => [k, z.number()])) as Record<FailureKind, z.ZodNumber>),
    })
    .optional(),
  /** Success measured inside the arm's own rehearsed world (co-adaptation diagnostic). */
  rehearsed_world_success: MeanCIZ.nullable(),
  steps: z.number(),
  minutes: z.number(),
});

export const TestTimeRowZ = z.object({
  policy: z.string(),
  mode: z.string(),
  n: z.number(),
  memory: z.string().optional(),
  /** The committed run held back writes its rehearsal saw refused (`guardTools`), this many calls. */
  guard: z.boolean().optional(),
  held_calls: z.number().optional(),
  /** The note decided the committed steps, written without it (`noteUse`; absent: `act`). */
  note_use: z.literal("decide").optional(),
  /** Steps the note-free rewrite replaced (summed over seeds). */
  rewritten_steps: z.number().optional(),
  success: MeanCIZ,
  /** Several seeds: each seed's success (seed order); `held_calls` is then their sum. */
  success_per_seed: z.array(z.number().nullable()).optional(),
  real_calls_during_rehearsal: z.number(),
  rehearsal_tokens_per_task: z.number(),
});

export const DemoResultsZ = z.object({
  minutes: z.number(),
  report: z.string(),
  seed: z.number().optional(),
  seeds: z.number().optional(),
  quick: z.boolean().optional(),
  /** The rehearsal prompt of the run (`compact-related` since recipe v17; `compact` under `--rehearsal-prompt`). */
  rehearsal_prompt: z.enum(["compact", "compact-related"]).optional(),
  /** RL steps of each RL arm (`--rl-steps`; absent in runs before it). */
  rl_steps: z.number().optional(),
  sft_gate: z.object({
    first_call_copy: z.number(),
    /** Write calls made with the gold arguments (mean over seeds; absent before recipe v11). */
    write_call_copy: z.number().optional(),
    fidelity: z.number(),
    passed: z.boolean().optional(),
    /** Fidelity on unseen calls (mean over seeds), what the gate checks beside first-call copy. */
    fidelity_unseen: z.number().optional(),
    /** Seeds whose own SFT model passed the gate, out of `seeds`. */
    seeds_passed: z.number().optional(),
    per_seed: z
      .array(
        z.object({
          seed: z.number(),
          first_call_copy: z.number(),
          write_call_copy: z.number().optional(),
          fidelity: z.number(),
          fidelity_unseen: z.number(),
          passed: z.boolean(),
          /** SFT success on the env-less set (the headroom RL has). */
          envless_success: z.number().optional(),
          /** Share of the SFT logs (past-agent traces) with a mistake. */
          flawed_traces: z.number().optional(),
          /**
           * The kept checkpoint's far-copy check on held-back logs (recipe v14): rates, the verdict
           * (v18: the write rate's), whether the reply rate reached its level (reported only) and
           * the levels themselves (results files before session 39 lack them).
           */
          copy_check: z
            .object({
              write: z.number(),
              reply: z.number(),
              passed: z.boolean(),
              reply_met: z.boolean().optional(),
              write_level: z.number().optional(),
              reply_level: z.number().optional(),
            })
            .optional(),
          /** SFT runs made for this seed (a run failing the copy check on writes is made again). */
          sft_attempts: z.number().optional(),
        }),
      )
      .optional(),
  }),
  arms: z.array(ArmResultZ),
  testtime: z.array(TestTimeRowZ),
  notes: z.array(z.string()).optional(),
});

export type MeanCIJson = z.infer<typeof MeanCIZ>;
export type ArmResult = z.infer<typeof ArmResultZ>;
export type TestTimeRow = z.infer<typeof TestTimeRowZ>;
export type DemoResults = z.infer<typeof DemoResultsZ>;
