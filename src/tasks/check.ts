import type { Rule, Task } from "../core/task.js";
import type { ToolSchema } from "../core/tools.js";
import { validateToolCall } from "../core/validate-tool-call.js";
import { TASK_ENV_KINDS } from "../envs/task-environment.js";
import { taskRecordings } from "./sft-sources.js";
import { traceSteps } from "./trace-steps.js";

/** What one task can be used for, as `envace tasks check` reports it. */
export interface TaskUses {
  /** Acting SFT examples (one per trace with at least one assistant message). A toolworld task's
   * gold run is SFT data too, though not counted here. */
  sft_act: number;
  /** Rehearsing SFT examples: recorded calls with their real results (traces, then examples no trace covers). */
  sft_rehearse: number;
  /** Rehearsal (or simulator) RL: needs checklists, since the reward comes from them. */
  rehearsal_rl: boolean;
  /** The real environment an eval or `real` training episode runs in, or null. */
  real_env: string | null;
  /** Some standard has no `rule`: scoring needs the LLM judge (`--judge-endpoint`). */
  judge_needed: boolean;
}

export interface TaskCheck {
  id: string;
  /** Problems that make the task wrong (a rule that names no tool can never pass). */
  errors: string[];
  /** Likely mistakes that do not stop the task from running. */
  warnings: string[];
  uses: TaskUses;
}

/**
 * Checks tasks beyond their schema: every rule, example and traced call is resolved against the
 * task's tools (names and argument schemas), and checklists against the user turns. Also says what
 * each task can be used for.
 */
export function checkTask(task: Task): TaskCheck {
  const errors: string[] = [];
  const warnings: string[] = [];
  const tools = task.tools;
  const names = new Set(tools.map((t) => t.name));
  if (names.size !== tools.length) errors.push("tools: duplicate tool names");

  task.checklists.forEach((checklist, c) => {
    if (checklist.length !== task.user_turns.length) {
      warnings.push(
        `checklists.${c}: ${checklist.length} turns of standards for ${task.user_turns.length} user turns`,
      );
    }
    checklist.forEach((standards, t) =>
      standards.forEach((s, k) => {
        if (s.rule)
          errors.push(...ruleProblems(s.rule, tools).map((p) => `checklists.${c}.${t}.${k}.rule: ${p}`));
      }),
    );
  });

  task.examples.forEach((ex, i) => {
    const err = validateToolCall({ id: "", name: ex.name, arguments: ex.arguments }, tools);
    if (err) warnings.push(`examples.${i}: ${err.message}`);
  });

  task.traces.forEach((trace, i) => {
    const steps = traceSteps(trace);
    for (const p of steps.problems) errors.push(`traces.${i}: ${p}`);
    for (const { call } of steps.calls) {
      const err = validateToolCall({ id: "", name: call.name, arguments: call.arguments }, tools);
      if (err) warnings.push(`traces.${i}: ${err.message}`);
    }
  });
  const recordings = taskRecordings(task);

  const kind = task.env?.kind;
  const realEnv = kind && (TASK_ENV_KINDS as readonly string[]).includes(kind) ? kind : null;
  const standards = task.checklists.flat(2);
  if (standards.length === 0)
    warnings.push("checklists: none, so every episode's reward is 0 (no RL signal)");
  return {
    id: task.id,
    errors,
    warnings,
    uses: {
      sft_act: recordings.conversations.length,
      sft_rehearse: recordings.calls.length,
      rehearsal_rl: standards.length > 0,
      real_env: realEnv,
      judge_needed: standards.some((s) => s.rule === undefined),
    },
  };
}

/** Why a rule can never pass (or never fail) against these tools; [] when it resolves. */
export function ruleProblems(rule: Rule, tools: readonly ToolSchema[]): string[] {
  if ("reply_contains" in rule) return [];
  const name = "call" in rule ? rule.call : rule.forbid;
  const tool = tools.find((t) => t.name === name);
  if (!tool)
    return [`tool "${name}" is not one of the task's tools (${tools.map((t) => t.name).join(", ")})`];
  if (!rule.args) return [];
  const props = tool.parameters.properties as Record<string, unknown> | undefined;
  const out: string[] = [];
  if (props) {
    for (const key of Object.keys(rule.args)) {
      if (!(key in props)) out.push(`args.${key} is not a parameter of ${name}`);
    }
  }
  // Rule args are a subset of a call's: check their values, not that required ones are present.
  const relaxed: ToolSchema = { ...tool, parameters: { ...tool.parameters, required: [] } };
  const err = validateToolCall({ id: "", name, arguments: rule.args }, [relaxed]);
  if (err && out.length === 0) out.push(err.message);
  return out;
}
