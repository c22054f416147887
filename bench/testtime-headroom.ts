/**
 * Diagnostic: where test-time rehearsal can help a demo policy, and where it loses (issue 11).
 *
 *   npm run bench:testtime-headroom -- --model DIR [--seed 0] [--tasks N] [--attempts 4]
 *        [--samples 4] [--temperature T] [--memory digest|consensus|summary] [--no-guard]
 *        [--rehearsal-prompt compact-related|compact] [--note-use act|decide] [--json]
 *
 * DIR is a saved demo model: an arm's `runs/<run>/arms/<arm>/checkpoints/step-N/model` or an SFT
 * checkpoint under `runs/cache`. The tasks are that seed's env-less evaluation tasks (`--tasks N`:
 * N of them spread evenly; default all), run in their real environment three ways: greedy without
 * rehearsal (the demo's `none` row), greedy with `parallel:<attempts>` rehearsal and its note
 * (its `parallel` row; attempts at `--temperature`, the note's `--memory`, defaults the demo's;
 * the committed run guards the domain's writes as the demo's rows do, unless `--no-guard`; the
 * demo's rehearsal prompt, `--rehearsal-prompt compact` for a recipe v16 model; the note used as
 * the demo uses it, or `--note-use`; attempts seeded as the demo's rows seed them), and `--samples`
 * plain runs at that temperature. Prints `measureHeadroom`'s report
 * (src/bench/testtime-headroom.ts): pass_at_samples − none bounds what choosing among the policy's
 * own tries could gain; the attempt figures say whether the rehearsal showed anything to choose
 * from, and the replays of imagined refusals in the real environment how often what it showed was
 * true.
 */
import { measureHeadroom } from "../src/bench/testtime-headroom.js";
import { buildDemoData, spread } from "../src/demo/data.js";
import { FULL_PLAN } from "../src/demo/layout.js";
import { withCompactTools } from "../src/demo/policy-view.js";
import { planTestTimeChoices, testTimeEpisode, testTimeRehearsal } from "../src/demo/testtime-rows.js";
import { toolworldWriteTools } from "../src/envs/toolworld/index.js";
import { modelBenchArgs } from "./model-args.js";
import { startWorker } from "../src/engines/worker-supervisor.js";
import { parseNoteUse, parseMemoryKind } from "../src/testtime/rehearsal-spec.js";
import type { NoteUse, RehearsalMemoryKind } from "../src/testtime/types.js";
import { boundedChatModel } from "../src/rollout/bounded-model.js";

const { opt, fail, int, model, seed, json, rehearsalPrompt } = modelBenchArgs(process.argv.slice(2));
const attempts = int("attempts", 4, 1);
const samples = int("samples", 4, 1);
const temperature = Number(opt("temperature") ?? FULL_PLAN.testtimeTemperature ?? 1);
if (!(temperature >= 0)) fail("--temperature must be a number ≥ 0");
const memory = readMemory(opt("memory"));
const guard = FULL_PLAN.testtimeGuard === true && !process.argv.includes("--no-guard");
const noteUse = readNoteUse(opt("note-use"));

/** `--memory`, default the demo's; a bad kind exits 2 with the parser's message. */
function readMemory(flag: string | undefined): RehearsalMemoryKind {
  try {
    return flag === undefined ? (FULL_PLAN.testtimeMemory ?? "digest") : parseMemoryKind(flag);
  } catch (e) {
    return fail((e as Error).message);
  }
}

/** `--note-use`, default the demo's; a bad kind exits 2 with the parser's message. */
function readNoteUse(flag: string | undefined): NoteUse {
  try {
    return flag === undefined ? planTestTimeChoices(FULL_PLAN).noteUse : parseNoteUse(flag);
  } catch (e) {
    return fail((e as Error).message);
  }
}

const all = buildDemoData(FULL_PLAN, seed).eval.envless;
const n = Math.min(all.length, int("tasks", all.length, 1));
const tasks = spread(all, n);

const worker = await startWorker({ model, port: 0 });
try {
  const started = Date.now();
  if (!json) process.stderr.write(`measuring ${n} tasks of seed ${seed} (${model})…\n`);
  const report = await measureHeadroom(tasks, {
    // exactly the demo's test-time rows (src/demo/testtime-rows.ts)
    episode: testTimeEpisode(
      boundedChatModel(withCompactTools(worker.client.chatModel()), FULL_PLAN.concurrency),
    ),
    rehearsal: (task) => ({
      ...testTimeRehearsal("parallel", attempts, {
        attemptTemperature: temperature,
        memory,
        promptVariant: rehearsalPrompt,
        noteUse,
      }),
      ...(guard ? { guardTools: toolworldWriteTools(task) } : {}),
    }),
    samples,
    sampleTemperature: temperature,
    concurrency: 2,
    seed, // the attempts the demo's rows sample for this seed
  });
  const out = {
    model,
    seed,
    attempts,
    memory,
    guard,
    note_use: noteUse,
    rehearsal_prompt: rehearsalPrompt,
    samples,
    temperature,
    minutes: (Date.now() - started) / 60000,
    ...report,
  };
  if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
  else {
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    console.log(
      `tasks ${report.tasks}: none ${pct(report.none)}, parallel:${attempts} ${pct(report.rehearsed)}`,
    );
    console.log(`  helped ${report.helped}, hurt ${report.hurt}`);
    console.log(
      `  ${samples} plain runs at T=${temperature}: mean ${pct(report.sample_success)}, pass@${samples} ${pct(report.pass_at_samples)}`,
    );
    console.log(
      `  rehearsed turns ${report.rehearsed_turns}: attempts identical ${pct(report.attempts_identical)}, ` +
        `distinct ${report.distinct_attempts.toFixed(2)}, attempts with an imagined error ${pct(report.attempts_with_imagined_error)}`,
    );
    console.log(
      `  imagined refusals replayed in the real environment: ${report.imagined_errors_replayed}, ` +
        `the real tool refused too: ${pct(report.imagined_errors_confirmed)}`,
    );
    console.log(
      `  committed run: same calls as none ${pct(report.committed_same_as_none)}, ` +
        `as an attempt ${pct(report.committed_matches_an_attempt)}, as the majority ${pct(report.committed_matches_majority)}`,
    );
    console.log(`  failures none ${JSON.stringify(report.failures.none)}`);
    console.log(`  failures rehearsed ${JSON.stringify(report.failures.rehearsed)}`);
  }
} finally {
  await worker.stop();
}
