import type { PolicyRole } from "../core/messages.js";
import { EnvaceError } from "../core/errors.js";
import type { Task } from "../core/task.js";
import { TASK_ENV_KINDS } from "../envs/task-environment.js";
import type { TrainConfig } from "./config.js";
import type { StepMetrics } from "./step-metrics.js";
import { sftExamplesForTasks } from "./trace-sft.js";

const ROLES: readonly PolicyRole[] = ["act", "rehearse"];
const realEnv = (t: Task) =>
  t.env !== undefined && (TASK_ENV_KINDS as readonly string[]).includes(t.env.kind);
const ids = (ts: readonly Task[]) =>
  ts
    .slice(0, 5)
    .map((t) => t.id)
    .join(", ") + (ts.length > 5 ? ", …" : "");

/**
 * Refuses a training run that could learn nothing, before any worker starts: no standards (every
 * reward 0), standards nobody can score (no rule and no judge), `real` mode or eval tasks without
 * a real environment, an SFT warm-up with no examples. Returns warnings for what is only partly
 * wrong (some tasks without checklists, one role with no SFT examples).
 */
export function preflightTrain(
  c: Pick<TrainConfig, "mode" | "judge" | "sft" | "rehearsal_prompt" | "roles"> & {
    loss?: Pick<TrainConfig["loss"], "kl_coef">;
  },
  tasks: readonly Task[],
  evalTasks: readonly Task[],
): { warnings: string[] } {
  const refuse = (msg: string) => new EnvaceError("INVALID_CONFIG", msg);
  const warnings: string[] = [];
  if (tasks.length === 0) throw refuse("no training tasks");
  const unscored = tasks.filter((t) => t.checklists.flat(2).length === 0);
  if (unscored.length === tasks.length) {
    throw refuse(
      `no task has a checklist, so every episode's reward is 0 and RL learns nothing (${ids(tasks)}); ` +
        "add checklists (docs/tasks.md, envace tasks import --checklists)",
    );
  }
  if (unscored.length > 0) {
    warnings.push(
      `${unscored.length} of ${tasks.length} tasks have no checklist (reward always 0): ${ids(unscored)}`,
    );
  }
  const needJudge = [...tasks, ...evalTasks].filter((t) => t.checklists.flat(2).some((s) => !s.rule));
  if (needJudge.length > 0 && !c.judge) {
    throw refuse(`standards without a rule need a judge (config judge:), in tasks ${ids(needJudge)}`);
  }
  if (c.mode === "real") {
    const without = tasks.filter((t) => !realEnv(t));
    if (without.length > 0) {
      throw refuse(
        `mode real needs a real env in every task (${TASK_ENV_KINDS.join(", ")}); none in ${ids(without)}`,
      );
    }
  }
  const evalWithout = evalTasks.filter((t) => !realEnv(t));
  if (evalWithout.length > 0) {
    throw refuse(`eval_tasks run in real environments; no real env in ${ids(evalWithout)}`);
  }
  if (c.sft) {
    const ex = sftExamplesForTasks(tasks, { roles: c.sft.roles, variant: c.rehearsal_prompt });
    const empty = c.sft.roles.filter((r) => ex[r].length === 0);
    if (empty.length === c.sft.roles.length) {
      throw refuse(
        "sft: 0 examples from these tasks (no gold solver, traces or examples); " +
          "import logs with envace tasks import, or remove sft",
      );
    }
    for (const r of empty) warnings.push(`sft: 0 examples for the ${r} role`);
    // The worker's KL reference is the model it started with (a frozen copy, or the base under LoRA):
    // an SFT warm-up in the same run does not move it, so the KL pulls toward the pre-SFT model.
    if ((c.loss?.kl_coef ?? 0) > 0) {
      warnings.push(
        "loss.kl_coef > 0 with an sft warm-up: the KL reference is the model before SFT (the worker's " +
          "starting weights), not the SFT result; to anchor to the SFT model, run SFT first and start " +
          "the RL run from its checkpoint (worker.model: RUN/checkpoints/step-0/model, full fine-tuning)",
      );
    }
  }
  if (ROLES.every((r) => c.roles[r] === "frozen")) throw refuse("both roles are frozen: nothing to train");
  return { warnings };
}

/**
 * What went wrong in a step, for a loud per-step warning: `trained` is false when the step changed
 * no weights (no rows, or the optimizer step was skipped), so that a run of such steps can fail.
 */
export function stepWarnings(
  m: Pick<StepMetrics, "step" | "rows" | "optim_skipped">,
  trainedRoles: Record<PolicyRole, boolean>,
): { trained: boolean; warnings: string[] } {
  const warnings: string[] = [];
  const rows = m.rows.act + m.rows.rehearse;
  if (rows === 0) warnings.push(`step ${m.step}: no trainable rows (every episode masked or failed)`);
  else if (trainedRoles.rehearse && m.rows.rehearse === 0) {
    warnings.push(
      `step ${m.step}: no rehearse rows (the policy made no tool call, so the rehearse role learns nothing)`,
    );
  }
  if (m.optim_skipped) warnings.push(`step ${m.step}: optimizer step skipped (nothing to learn from)`);
  return { trained: rows > 0 && !m.optim_skipped, warnings };
}
