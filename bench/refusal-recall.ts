/**
 * Diagnostic: does a demo model's rehearser know when a write is refused (issue 11)?
 *
 *   npm run bench:refusal-recall -- --model DIR [--seed 0] [--max N] [--rehearsal-prompt P] [--json]
 *
 * DIR is a saved demo model (an arm's `runs/<run>/arms/<arm>/checkpoints/step-N/model` or an SFT
 * checkpoint under `runs/cache`). The probes are the writes of the seed's env-less evaluation tasks
 * (`src/demo/refusal-recall.ts`): the ones a past agent makes against its policy (the real tool
 * refuses them) and the gold runs' (it accepts them), each after the real conversation before it,
 * with other tasks' logs as the evidence, rehearsed greedily as the demo scores fidelity (`--max N`:
 * at most N, spread over the domains; default all). Prints the share of forbidden writes the
 * rehearser refuses (`recall`), of allowed ones it refuses (`false_refusals`), and both by tool:
 * test-time rehearsal can only keep out the forbidden writes it imagines refused. The prompt is the
 * demo's (`compact-related`: the call, its tool's logs and the conversation's earlier calls on the same
 * values); `--rehearsal-prompt compact` for a model trained under recipe v16, which never saw them.
 */
import { buildDemoData } from "../src/demo/data.js";
import { probeFidelity } from "../src/demo/fidelity-probes.js";
import { FULL_PLAN } from "../src/demo/layout.js";
import { withCompactTools } from "../src/demo/policy-view.js";
import { refusalProbes, refusalReport } from "../src/demo/refusal-recall.js";
import { startWorker } from "../src/engines/worker-supervisor.js";
import { modelBenchArgs } from "./model-args.js";

const { int, model, seed, json, rehearsalPrompt: variant } = modelBenchArgs(process.argv.slice(2));
const max = int("max", Number.MAX_SAFE_INTEGER, 1);

const probes = refusalProbes(buildDemoData(FULL_PLAN, seed).eval.envless);
const worker = await startWorker({ model, port: 0 });
try {
  const started = Date.now();
  const policy = withCompactTools(worker.client.chatModel());
  const scored = await probeFidelity(policy, probes, { max, concurrency: FULL_PLAN.concurrency, variant });
  const report = refusalReport(scored);
  const out = { model, seed, rehearsal_prompt: variant, minutes: (Date.now() - started) / 60000, ...report };
  if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
  else {
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    console.log(
      `forbidden writes ${report.forbidden}: refused ${pct(report.recall)}; ` +
        `allowed writes ${report.allowed}: refused ${pct(report.false_refusals)}`,
    );
    for (const [tool, c] of Object.entries(report.by_tool))
      console.log(
        `  ${tool.padEnd(16)} forbidden ${c.forbidden}, refused ${pct(c.recall)}; ` +
          `allowed ${c.allowed}, refused ${pct(c.false_refusals)}`,
      );
  }
} finally {
  await worker.stop();
}
