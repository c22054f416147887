import { existsSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError, errorLine } from "../core/errors.js";
import type { TestTimeRow } from "../report/results.js";
import type { ArmRun } from "./aggregate.js";
import type { ArmSpec } from "./arms.js";
import type { CopyCheckScore } from "./copy-check.js";
import { mapConcurrent } from "../core/map-concurrent.js";
import { armData, buildDemoData, spread, type DemoData } from "./data.js";
import { evaluateArm } from "./evaluate-arm.js";
import { type DemoPlan } from "./layout.js";
import type { DemoEvent } from "./pipeline.js";
import {
  armResultFile,
  armResultKey,
  readFinishedArm,
  writeFinishedArm,
  type FinishedArm,
} from "./arm-result-file.js";
import { armOutDir, trainArm } from "./run-arm.js";
import { sftCheckpoint, type SftStageResult } from "./sft-stage.js";
import { loggedAnswerBook, recordedAnswerBook, type LoggedAnswerBook } from "./logged-answers.js";
import { planTestTimeChoices, testTimeRows } from "./testtime-rows.js";

/**
 * The SFT gate: RL on a model that cannot copy ids, or whose rehearsals of calls it was not shown
 * the answers to are mostly wrong, is noise. Fidelity is checked on unseen calls (issue 11): on
 * recorded calls with their answers in the prompt it only measures copying. The unseen threshold is
 * lower than the recorded one was: an unseen call's answer comes from what the model learned of the
 * domain's worlds, not from the prompt. Write-call copy (v11): a model that copies its first call
 * but writes the looked-up day instead of the requested one fails half the write tasks before RL
 * starts (v10: 43.4 / 57.8% on seeds 3 / 9, the two seeds under 30% success; 78.7–89.0% on 0–2).
 */
export const GATE = { firstCallCopy: 0.95, writeCallCopy: 0.7, fidelityUnseen: 0.6 };

export function gatePassed(g: { copy: number; writeCopy: number; unseen: number }): boolean {
  return g.copy >= GATE.firstCallCopy && g.writeCopy >= GATE.writeCallCopy && g.unseen >= GATE.fidelityUnseen;
}

/** The SFT model's own measurements on one seed: the gate's figures and the SFT stage's check. */
export interface SeedGate {
  seed: number;
  copy: number;
  writeCopy: number;
  fidelity: number;
  unseen: number;
  envless: number;
  flawed: number;
  check: CopyCheckScore;
  attempts: number;
}

export interface SeedRun {
  /** Absent when the `sft` arm was not run. */
  gate?: SeedGate;
  runs: ArmRun[];
  testtime: TestTimeRow[];
}

export interface SeedContext {
  plan: DemoPlan;
  specs: readonly ArmSpec[];
  /** The run directory; with several seeds each arm writes to `<arm>/seed-<seed>`. */
  out: string;
  multiSeed: boolean;
  /** The code's fingerprint (`codeVersion`), taken when the run started: part of each arm's key. */
  code: string;
  cacheDir: string;
  quick: boolean;
  testTime: boolean;
  onEvent: (e: DemoEvent) => void;
}

/**
 * One seed of `envace demo`: its data, its SFT checkpoint (cached), then every arm from that
 * checkpoint, `plan.armJobs` at a time (default one after another; each arm holds its own worker
 * until it is evaluated). Results come back in the specs' order whatever order arms finish in.
 */
export async function runSeed(seed: number, ctx: SeedContext): Promise<SeedRun> {
  const { plan, onEvent } = ctx;
  let stage = "data";
  let data: DemoData;
  let sft: SftStageResult;
  try {
    onEvent({ kind: "stage", seed, stage });
    data = buildDemoData(plan, seed);
    stage = "SFT";
    // the SFT stage's workers (training, the copy check of a cached checkpoint) keep their output too
    const sftLog = join(ctx.out, "sft", ...(ctx.multiSeed ? [seedFolder(seed)] : []), "worker.log");
    sft = await sftCheckpoint(
      data,
      plan,
      seed,
      ctx.cacheDir,
      (progress) => onEvent({ kind: "sft", seed, progress }),
      sftLog,
    );
  } catch (error) {
    // said when it happens, as an arm's failure is: with several seeds the run goes on for an hour
    onEvent({ kind: "seed-failed", seed, stage, error: errorLine(error) });
    throw error;
  }
  onEvent({ kind: "sft", seed, progress: { phase: "save" }, cached: sft.cached });

  // the worldDrift experiment: RL and evaluation on a newer snapshot of the worlds SFT's logs saw
  data = armData(plan, seed, data);
  // once a seed, for every rehearsal arm: the answers rehearsals are scored against, if any
  const loggedAnswers = rehearseAnswerBook(plan, sft, data);
  // Every arm runs even where another failed (each starts from the SFT checkpoint alone); the
  // failures are reported as they happen and thrown together once the seed's other arms are done.
  const settled = await mapConcurrent(ctx.specs, Math.max(1, plan.armJobs ?? 1), async (spec) => {
    try {
      return { arm: await keptOrRun({ spec, seed, data, sft, loggedAnswers }, ctx) };
    } catch (e) {
      const error = errorLine(e);
      onEvent({ kind: "arm-failed", seed, arm: spec.name, error });
      return { failed: `seed ${seed} ${spec.name}: ${error}` };
    }
  });
  const failed = settled.flatMap((s) => (s.failed !== undefined ? [s.failed] : []));
  if (failed.length > 0) throw armsFailed(failed);
  const arms = settled.flatMap((s) => (s.arm ? [s.arm] : []));
  const gate = arms.find((a) => a.gate)?.gate;
  return {
    ...(gate ? { gate } : {}),
    runs: arms.map((a) => a.run),
    testtime: arms.flatMap((a) => a.testtime),
  };
}

/**
 * The answers rehearsals are scored against (`rehearseReward`): the SFT logs' (`logged`), the RL
 * tasks' own recorded calls (`recorded`), or none (the task reward alone).
 */
function rehearseAnswerBook(
  plan: DemoPlan,
  sft: SftStageResult,
  data: DemoData,
): LoggedAnswerBook | undefined {
  const reward = plan.experiments?.rehearseReward;
  if (reward === "logged") return loggedAnswerBook(sft.logs);
  if (reward === "recorded") {
    return recordedAnswerBook(Object.values(data.train).flat());
  }
  return undefined;
}

/**
 * The arms that failed, and the seeds whose data or SFT stage failed, as one error. With several
 * seeds the first seed's failure would otherwise be the only one shown; `details.failed` keeps
 * every one, a line each.
 */
export function armsFailed(failed: readonly string[]): EnvaceError {
  return new EnvaceError(
    "ARMS_FAILED",
    `${failed.length} failure${failed.length === 1 ? "" : "s"} (every arm that finished is kept in its ` +
      `arm-result.json):\n  ${failed.join("\n  ")}`,
    { failed },
  );
}

/** One arm of one seed, from the seed's data and SFT checkpoint. */
interface ArmJob {
  spec: ArmSpec;
  seed: number;
  data: DemoData;
  sft: SftStageResult;
  /** The answers rehearsals are scored against (`rehearseReward`: logged, recorded), else undefined. */
  loggedAnswers: LoggedAnswerBook | undefined;
}

/** A seed's own folder under a stage's (SFT's, an arm's) in a multi-seed run; `SEED_FOLDER` matches any. */
const seedFolder = (seed: number): string => `seed-${seed}`;
const SEED_FOLDER = /^seed-\d+$/;

const armDirOf = ({ spec, seed }: ArmJob, ctx: SeedContext): string =>
  ctx.multiSeed ? join(armOutDir(ctx.out, spec.name), seedFolder(seed)) : armOutDir(ctx.out, spec.name);

/**
 * An arm's kept result when an earlier run with the same `--out` finished it under the same key
 * (`armResultKey`: code, plan, seed, arm, SFT checkpoint); otherwise the arm's folder is cleared, the
 * arm is run and its result kept.
 */
async function keptOrRun(job: ArmJob, ctx: SeedContext): Promise<FinishedArm> {
  const { spec, seed, sft } = job;
  const dir = armDirOf(job, ctx);
  const key = armResultKey({
    plan: ctx.plan,
    seed,
    spec,
    sftDir: sft.dir,
    testTime: ctx.testTime,
    code: ctx.code,
  });
  const kept = readFinishedArm(dir, key);
  if (kept) {
    ctx.onEvent({ kind: "arm-reused", seed, arm: spec.name, file: armResultFile(dir) });
    if (kept.gate) ctx.onEvent(gateEvent(kept.gate));
    return kept;
  }
  clearArmDir(dir);
  const done = await trainAndEvaluateArm(job, dir, ctx);
  writeFinishedArm(dir, key, done);
  return done;
}

/**
 * Clears what an unfinished or outdated run of an arm left in `dir` (its checkpoints would refuse a
 * fresh start, its curve would be appended to), so that the arm is made again from the SFT
 * checkpoint alone. Seed folders (`seedFolder`) are other seeds' arms (a multi-seed run into the same --out).
 */
function clearArmDir(dir: string): void {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return;
  for (const entry of readdirSync(dir))
    if (!SEED_FOLDER.test(entry)) rmSync(join(dir, entry), { recursive: true, force: true });
}

function gateEvent(gate: SeedGate): DemoEvent {
  return {
    kind: "gate",
    seed: gate.seed,
    firstCallCopy: gate.copy,
    writeCallCopy: gate.writeCopy,
    fidelity: gate.fidelity,
    fidelityUnseen: gate.unseen,
    passed: gatePassed(gate),
  };
}

/**
 * One arm of a seed, in `armDir`: trained from the SFT checkpoint, evaluated, and (sft, envace) its
 * test-time rows.
 */
async function trainAndEvaluateArm(
  { spec, seed, data, sft, loggedAnswers }: ArmJob,
  armDir: string,
  ctx: SeedContext,
): Promise<FinishedArm> {
  const { plan, onEvent } = ctx;
  const a0 = Date.now();
  onEvent({ kind: "arm-start", seed, arm: spec.name, steps: spec.mode ? plan.rl.steps : 0 });
  const tasks = spec.domains.flatMap((d) => data.train[d] ?? []);
  const { worker, policy, training } = await trainArm(spec, {
    sftDir: sft.dir,
    plan,
    tasks: tasks.length > 0 ? tasks : Object.values(data.train).flat(),
    outDir: armDir,
    seed,
    onStep: (metrics) => onEvent({ kind: "arm-step", seed, arm: spec.name, metrics }),
    onEpisode: (done, total) => onEvent({ kind: "arm-episodes", seed, arm: spec.name, done, total }),
    curveTasks: spread(data.eval.envless, plan.curveTasks),
    ...(loggedAnswers ? { loggedAnswers } : {}),
  });
  try {
    onEvent({ kind: "stage", seed, stage: `evaluate ${spec.name}` });
    const evaluation = await evaluateArm(policy, spec, data, plan);
    let gate: SeedGate | undefined;
    if (spec.name === "sft") {
      const envless = evaluation.success.envless;
      gate = {
        seed,
        copy: evaluation.firstCallCopy,
        writeCopy: evaluation.writeCallCopy,
        fidelity: evaluation.fidelity.recorded.exact,
        unseen: evaluation.fidelityUnseen.exact,
        envless: envless.reduce((a, b) => a + b, 0) / Math.max(1, envless.length),
        flawed: sft.flawedShare,
        check: sft.check,
        attempts: sft.attempts.length,
      };
      onEvent(gateEvent(gate));
    }
    const testtime: TestTimeRow[] = [];
    if (ctx.testTime && (spec.name === "sft" || spec.name === "envace")) {
      onEvent({ kind: "stage", seed, stage: `test-time rehearsal ${spec.name}` });
      testtime.push(
        ...(await testTimeRows(spec.name, policy, data.eval.envless, {
          ...planTestTimeChoices(plan),
          n: plan.testtimeAttempts,
          concurrency: plan.concurrency,
          seed,
          guard: plan.testtimeGuard === true,
        })),
      );
    }
    const minutes = (Date.now() - a0) / 60000;
    onEvent({ kind: "arm-done", seed, arm: spec.name, minutes });
    return { run: { spec, training, evaluation, minutes }, ...(gate ? { gate } : {}), testtime };
  } finally {
    await worker.stop();
  }
}
