import { z } from "zod";

/**
 * The demo's results file (`results.json`) and its `--json` output: one schema, so that the report
 * can be rebuilt from a run directory and scripts can rely on the shape.
 */
export const MeanCIZ = z.object({
  mean: z.number().nullable(),
  ci95: z.number().nullable(),
  n: z.number().optional(),
});

export const ArmNameZ = z.enum(["sft", "real", "simulator", "envace", "envace_anchored", "real_all"]);

export const ArmResultZ = z.object({
  name: ArmNameZ,
  train_env_calls: z.number(),
  success: z.object({ env_domain: MeanCIZ, envless: MeanCIZ, heldout_domain: MeanCIZ }),
  reward_mean: z.number().nullable(),
  /** Rehearsal fidelity of this arm's model: exact JSON match and field-level F1 vs the real response. */
  fidelity: z
    .object({
      recorded: z.object({ exact: z.number(), f1: z.number(), n: z.number() }),
      own_calls: z.object({ exact: z.number(), f1: z.number(), n: z.number() }),
    })
    .nullable(),
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
  success: MeanCIZ,
  real_calls_during_rehearsal: z.number(),
  rehearsal_tokens_per_task: z.number(),
});

export const DemoResultsZ = z.object({
  minutes: z.number(),
  report: z.string(),
  seed: z.number().optional(),
  seeds: z.number().optional(),
  quick: z.boolean().optional(),
  sft_gate: z.object({ first_call_copy: z.number(), fidelity: z.number(), passed: z.boolean().optional() }),
  arms: z.array(ArmResultZ),
  testtime: z.array(TestTimeRowZ),
  notes: z.array(z.string()).optional(),
});

export type MeanCIJson = z.infer<typeof MeanCIZ>;
export type ArmResult = z.infer<typeof ArmResultZ>;
export type TestTimeRow = z.infer<typeof TestTimeRowZ>;
export type DemoResults = z.infer<typeof DemoResultsZ>;
