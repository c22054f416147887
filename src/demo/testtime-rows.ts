import { mapConcurrent } from "../core/map-concurrent.js";
import type { ChatModel } from "../core/model.js";
import type { Task } from "../core/task.js";
import { createToolworldEnv, toolworldWriteTools } from "../envs/toolworld/index.js";
import type { TestTimeRow } from "../report/results.js";
import { meanCI } from "../report/stats.js";
import { runEpisodeWithRehearsal, testTimeSeeds, type RehearsalEpisodeOptions } from "../testtime/episode.js";
import type { NoteUse, RehearsalMemoryKind, RehearsalOptions } from "../testtime/types.js";
import { EVAL_DECODING } from "./evaluate.js";
import { demoRehearsalPrompt, type DemoPlan, type DemoRehearsalPrompt } from "./layout.js";

/** What the demo chooses for test-time rehearsal besides its mode and attempts (all required). */
export interface DemoTestTimeChoices {
  /** Sampling temperature of the imagined attempts (acting and rehearsing). */
  attemptTemperature: number;
  /** How the attempts become the note. */
  memory: RehearsalMemoryKind;
  /** The rehearsal prompt: the plan's, or the saved model's own. */
  promptVariant: DemoRehearsalPrompt;
  /** What the note does in the committed run (`RehearsalOptions.noteUse`). */
  noteUse: NoteUse;
}

/**
 * The demo's test-time rehearsal options for one mode (`none`, or `n` attempts condensed into a
 * note), with evaluation decoding's limits.
 */
export function testTimeRehearsal(
  mode: RehearsalOptions["mode"],
  n: number,
  c: DemoTestTimeChoices,
): RehearsalOptions {
  return {
    mode,
    ...(mode === "none" ? {} : { n, memory: c.memory }),
    promptVariant: c.promptVariant,
    maxTokensPerCall: EVAL_DECODING.maxTokens,
    maxStepsPerAttempt: EVAL_DECODING.maxAssistantTurns,
    temperature: c.attemptTemperature,
    ...(mode === "none" || c.noteUse === "act" ? {} : { noteUse: c.noteUse }),
  };
}

type TestTimePlan = Pick<
  DemoPlan,
  "testtimeTemperature" | "testtimeMemory" | "rehearsalPrompt" | "testtimeNoteUse"
>;

/** The plan's test-time choices (its defaults: temperature 1, a digest note, the note acting). */
export function planTestTimeChoices(plan: TestTimePlan): DemoTestTimeChoices {
  return {
    attemptTemperature: plan.testtimeTemperature ?? 1,
    memory: plan.testtimeMemory ?? "digest",
    promptVariant: demoRehearsalPrompt(plan),
    noteUse: plan.testtimeNoteUse ?? "act",
  };
}

/**
 * The plan's `parallel` test-time rehearsal (its attempts and choices): the demo's `parallel`
 * rows, and the policy's own notes in RL (`withOwnRehearsalNotes`).
 */
export function planTestTimeRehearsal(
  plan: TestTimePlan & Pick<DemoPlan, "testtimeAttempts">,
): RehearsalOptions {
  return testTimeRehearsal("parallel", plan.testtimeAttempts, planTestTimeChoices(plan));
}

/** Everything of a test-time episode but its rehearsal: evaluation decoding, the real toolworld. */
export function testTimeEpisode(policy: ChatModel): Omit<RehearsalEpisodeOptions, "rehearsal"> {
  return {
    policy,
    envFactory: (t) => createToolworldEnv(t),
    temperature: EVAL_DECODING.temperature,
    maxTokens: EVAL_DECODING.maxTokens,
    maxAssistantTurns: EVAL_DECODING.maxAssistantTurns,
    maxParallelCalls: EVAL_DECODING.maxParallelCalls,
    contextBudgetTokens: 2048,
  };
}

export interface TestTimeRowsOptions extends DemoTestTimeChoices {
  /** Imagined attempts per rehearsal. */
  n: number;
  /** Model calls in flight (split over the attempts). */
  concurrency: number;
  /**
   * Seeds the sampled attempts (`testTimeSeeds`): the demo's seed, so that a row of the same
   * checkpoint samples the same attempts in every run and in every mode it is compared under.
   */
  seed: number;
  /**
   * The committed run holds back the domain's writes (`toolworldWriteTools`: the tools a deployed
   * agent knows change the world, never a task's checklist) its rehearsal saw refused.
   */
  guard?: boolean;
}

/**
 * Test-time private rehearsal rows (issue 6 in the demo's table): the policy rehearses each user
 * turn N times in imagination, condenses the attempts into a note, then commits once in the
 * real environment. The tasks are the demo's evaluation tasks, whose `examples` are other tasks' logs
 * of the same world, never their own recorded results (`DemoData.eval`): the rehearser is not shown
 * the answers, and rehearsal rests on that evidence and the policy's own world model.
 */
export async function testTimeRows(
  policyName: string,
  policy: ChatModel,
  tasks: readonly Task[],
  o: TestTimeRowsOptions,
): Promise<TestTimeRow[]> {
  const rows: TestTimeRow[] = [];
  for (const mode of ["none", "parallel", "sequential"] as const) {
    const rehearsal = testTimeRehearsal(mode, o.n, o);
    const guarded = o.guard === true && mode !== "none";
    const results = await mapConcurrent(
      tasks,
      Math.max(1, Math.floor(o.concurrency / Math.max(1, o.n))),
      (task) =>
        testTimeSeeds(o.seed, task, () =>
          runEpisodeWithRehearsal(task, {
            ...testTimeEpisode(policy),
            rehearsal: guarded ? { ...rehearsal, guardTools: toolworldWriteTools(task) } : rehearsal,
          }),
        ),
    );
    const success = meanCI(results.map((r) => (r.success ? 1 : 0)));
    rows.push({
      policy: policyName,
      mode,
      n: mode === "none" ? 0 : o.n,
      ...(mode === "none" ? {} : { memory: o.memory }),
      ...(guarded ? { guard: true, held_calls: results.reduce((a, r) => a + r.rehearsal.heldCalls, 0) } : {}),
      ...(rehearsal.noteUse === "decide"
        ? {
            note_use: rehearsal.noteUse,
            rewritten_steps: results.reduce((a, r) => a + r.rehearsal.rewrittenSteps, 0),
          }
        : {}),
      success: { mean: success.mean, ci95: Number.isNaN(success.ci95) ? null : success.ci95, n: success.n },
      real_calls_during_rehearsal: results.reduce((a, r) => a + r.rehearsal.realCallsDuringRehearsal, 0),
      rehearsal_tokens_per_task:
        results.reduce((a, r) => a + r.rehearsal.tokens.total, 0) / Math.max(1, results.length),
    });
  }
  return rows;
}
