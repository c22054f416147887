/** τ² task files (upstream `tau2.data_model.tasks.Task`), validated with zod. */
import { z } from "zod";

const requestor = z.enum(["assistant", "user"]);
const args = z.record(z.string(), z.unknown());

export const Tau2ActionSchema = z
  .object({
    action_id: z.string(),
    requestor: requestor.default("assistant"),
    name: z.string(),
    arguments: args,
    info: z.string().nullish(),
    compare_args: z.array(z.string()).nullish(),
  })
  .loose();

export const Tau2EnvFunctionCallSchema = z
  .object({ env_type: requestor, func_name: z.string(), arguments: args })
  .loose();

export const Tau2EnvAssertionSchema = Tau2EnvFunctionCallSchema.extend({
  assert_value: z.boolean().default(true),
  message: z.string().nullish(),
});

export const Tau2RewardTypeSchema = z.enum(["DB", "ENV_ASSERTION", "NL_ASSERTION", "ACTION", "COMMUNICATE"]);

export const Tau2EvaluationCriteriaSchema = z
  .object({
    actions: z.array(Tau2ActionSchema).nullish(),
    env_assertions: z.array(Tau2EnvAssertionSchema).nullish(),
    communicate_info: z.array(z.string()).nullish(),
    nl_assertions: z.array(z.string()).nullish(),
    reward_basis: z.array(Tau2RewardTypeSchema).default(["DB", "COMMUNICATE"]),
  })
  .loose();

const structuredInstructions = z
  .object({
    domain: z.string(),
    reason_for_call: z.string(),
    known_info: z.string().nullish(),
    unknown_info: z.string().nullish(),
    task_instructions: z.string(),
  })
  .loose();

export const Tau2UserScenarioSchema = z
  .object({ persona: z.string().nullish(), instructions: z.union([structuredInstructions, z.string()]) })
  .loose();

const message = z.object({ role: z.enum(["system", "user", "assistant", "tool"]) }).loose();

export const Tau2InitialStateSchema = z
  .object({
    initialization_data: z
      .object({ agent_data: args.nullish(), user_data: args.nullish() })
      .loose()
      .nullish(),
    initialization_actions: z.array(Tau2EnvFunctionCallSchema).nullish(),
    message_history: z.array(message).nullish(),
  })
  .loose();

export const Tau2TaskSchema = z
  .object({
    id: z.string(),
    description: z
      .object({
        purpose: z.string().nullish(),
        relevant_policies: z.string().nullish(),
        notes: z.string().nullish(),
      })
      .loose()
      .nullish(),
    user_scenario: Tau2UserScenarioSchema,
    ticket: z.string().nullish(),
    initial_state: Tau2InitialStateSchema.nullish(),
    evaluation_criteria: Tau2EvaluationCriteriaSchema.nullish(),
  })
  .loose();

export type Tau2Action = z.infer<typeof Tau2ActionSchema>;
export type Tau2EnvAssertion = z.infer<typeof Tau2EnvAssertionSchema>;
export type Tau2EvaluationCriteria = z.infer<typeof Tau2EvaluationCriteriaSchema>;
export type Tau2InitialState = z.infer<typeof Tau2InitialStateSchema>;
export type Tau2RewardType = z.infer<typeof Tau2RewardTypeSchema>;
export type Tau2Task = z.infer<typeof Tau2TaskSchema>;
