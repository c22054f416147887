/**
 * Diagnostic: do two demo models rehearse the same world? (issue 11: `envace` and `simulator`)
 *
 *   npm run bench:rehearser-agreement -- --model DIR --against DIR [--seed 0] [--max N] [--json]
 *     [--calls unseen|training] [--tasks 60] [--samples 4] [--actor DIR] [--evidence own|borrowed]
 *
 * Both models rehearse the same calls, greedily with the demo's prompt, one worker at a time.
 * Printed: each model's fidelity, how many answers are alike, and where they differ, which model is
 * right. Typical use: `--model <envace arm checkpoint> --against <the SFT checkpoint it started
 * from>` (the `simulator` arm's frozen rehearser).
 *
 * `--calls unseen` (default): the seed's unseen recorded calls (the demo's `fidelity_unseen`
 * probes: the env-less evaluation tasks' calls whose answers no prompt shows).
 * `--calls training`: the calls RL's rehearser answers. An actor (`--actor`, default `--against`:
 * the SFT checkpoint RL starts from) runs `--tasks` of the seed's training tasks `--samples` times
 * each at RL's temperature (1) in the real environments; its calls are rehearsed with the tasks'
 * own recorded calls in the prompt, as in training, and the figures are split by whether the
 * prompt shows the call's answer. `--evidence borrowed` shows instead other tasks' logged calls on
 * the same world, as the demo's `rlExamples: "borrowed"` experiment trains (no answer of the task's
 * own recorded run in the prompt).
 */
import { existsSync } from "node:fs";
import type { ChatModel } from "../src/core/model.js";
import { borrowWithinDomains, buildDemoData, spread } from "../src/demo/data.js";
import {
  answerInPrompt,
  probeFidelity,
  recordedProbes,
  type RehearsalProbe,
  type ScoredProbe,
} from "../src/demo/fidelity-probes.js";
import { FULL_PLAN, TRAIN_DOMAINS } from "../src/demo/layout.js";
import { withCompactTools } from "../src/demo/policy-view.js";
import { agreementWhere } from "../src/demo/rehearser-agreement.js";
import { trainingCallProbes } from "../src/demo/training-call-probes.js";
import { startWorker } from "../src/engines/worker-supervisor.js";
import { modelBenchArgs } from "./model-args.js";

const args = modelBenchArgs(process.argv.slice(2));
const { int, model, seed, json, rehearsalPrompt: variant } = args;
const savedModel = (flag: string, dir: string | undefined): string => {
  if (dir === undefined) return args.fail(`${flag} DIR is required (the model to compare with)`);
  if (!existsSync(`${dir}/config.json`))
    args.fail(`${flag} ${dir}: no config.json there (not a saved model)`);
  return dir;
};
const against = savedModel("--against", args.opt("against"));
const calls = args.opt("calls") ?? "unseen";
if (calls !== "unseen" && calls !== "training")
  args.fail(`--calls must be unseen or training, got "${calls}"`);
const actor = savedModel("--actor", args.opt("actor") ?? against);
const evidence = args.opt("evidence") ?? "own";
if (evidence !== "own" && evidence !== "borrowed")
  args.fail(`--evidence must be own or borrowed, got "${evidence}"`);
if (evidence !== "own" && calls !== "training") args.fail("--evidence applies to --calls training only");
const max = int("max", Number.MAX_SAFE_INTEGER, 1);
const taskCount = int("tasks", 60, 1);
const samples = int("samples", 4, 1);

async function withWorker<T>(dir: string, fn: (m: ChatModel) => Promise<T>): Promise<T> {
  const worker = await startWorker({ model: dir, port: 0 });
  try {
    return await fn(worker.client.chatModel());
  } finally {
    await worker.stop();
  }
}

const started = Date.now();
const data = buildDemoData(FULL_PLAN, seed);
let probes: RehearsalProbe[];
if (calls === "unseen") probes = recordedProbes(data.eval.envless);
else {
  const trainTasks = TRAIN_DOMAINS.flatMap((d) => data.train[d] ?? []);
  const tasks = spread(evidence === "borrowed" ? borrowWithinDomains(trainTasks) : trainTasks, taskCount);
  probes = await withWorker(actor, (m) =>
    trainingCallProbes(withCompactTools(m), tasks, {
      samples,
      temperature: 1,
      seed,
      concurrency: FULL_PLAN.concurrency,
    }),
  );
}
const rehearse = (dir: string): Promise<ScoredProbe[]> =>
  withWorker(dir, (m) =>
    probeFidelity(m, probes, {
      max,
      concurrency: FULL_PLAN.concurrency,
      unseenOnly: calls === "unseen",
      variant,
    }),
  );
const a = await rehearse(model);
const b = await rehearse(against);

/** Agreement on the probes `keep` selects, with each model's fidelity there. */
function figures(keep?: (p: RehearsalProbe) => boolean) {
  const { fidelity, ...agreement } = agreementWhere(a, b, keep);
  return { ...agreement, fidelity: { model: fidelity.first, against: fidelity.second } };
}
const all = figures();
const out = {
  model,
  against,
  seed,
  calls,
  rehearsal_prompt: variant,
  ...(calls === "training" ? { actor, tasks: taskCount, samples, evidence } : {}),
  minutes: (Date.now() - started) / 60000,
  ...all,
  ...(calls === "training"
    ? { answer_in_prompt: figures(answerInPrompt), answer_not_in_prompt: figures((p) => !answerInPrompt(p)) }
    : {}),
};
if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
else {
  const share = (x: number) => `${(100 * x).toFixed(1)}%`;
  const print = (label: string, f: ReturnType<typeof figures>) => {
    const pct = (k: number) => share(k / Math.max(1, f.probes));
    console.log(`${label}: ${f.probes} calls`);
    console.log(`  fidelity: --model ${share(f.fidelity.model)}, --against ${share(f.fidelity.against)}`);
    console.log(`  same answer ${f.same} (${pct(f.same)}), of them right ${f.sameRight}`);
    console.log(
      `  different ${f.probes - f.same}: only --model right ${f.onlyFirstRight}, ` +
        `only --against right ${f.onlySecondRight}, neither ${f.neitherRight}`,
    );
  };
  const what = calls === "unseen" ? "unseen recorded calls" : "the actor's calls on training tasks";
  print(`${what} (seed ${seed}, ${out.minutes.toFixed(1)} min)`, all);
  if (calls === "training") {
    print("  of them, answer in the prompt (recorded)", out.answer_in_prompt!);
    print("  of them, answer not in the prompt", out.answer_not_in_prompt!);
  }
}
