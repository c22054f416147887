/**
 * Diagnostic: why a demo model's rehearser gets unseen calls wrong (issue 11).
 *
 *   npm run bench:rehearser-misses -- --model DIR [--seed 0] [--max N] [--rehearsal-prompt P] [--json]
 *
 * DIR is a saved demo model (an arm's `runs/<run>/arms/<arm>/checkpoints/step-N/model` or an SFT
 * checkpoint under `runs/cache`). The probes are the seed's env-less evaluation tasks' recorded calls
 * whose answers no prompt shows (the held-out half of the demo's `fidelity_unseen`; `--max N` spread
 * over the domains, default all), rehearsed greedily as the demo scores them. Each miss is classified
 * against the seed's training logs (`src/demo/rehearser-misses.ts`): another world's answer to the
 * same call, a call these logs never show in this world, a logged call missed, or unparsed. And
 * `tenant_sensitivity`: the share of those calls whose answer changes when the prompt's tenant line
 * names another world of the domain (`tenantSensitivity`): does the rehearser read the world at all?
 * The prompt is the demo's (`compact-related`); `--rehearsal-prompt compact` for a recipe v16 model.
 */
import { buildDemoData } from "../src/demo/data.js";
import { fidelityByTool, probeFidelity, recordedProbes } from "../src/demo/fidelity-probes.js";
import { FULL_PLAN } from "../src/demo/layout.js";
import {
  domainTenants,
  loggedAnswers,
  missesOf,
  missReport,
  tenantSensitivity,
  worldDependent,
} from "../src/demo/rehearser-misses.js";
import { modelBenchArgs } from "./model-args.js";
import { startWorker } from "../src/engines/worker-supervisor.js";

const { int, model, seed, json, rehearsalPrompt: variant } = modelBenchArgs(process.argv.slice(2));
const max = int("max", Number.MAX_SAFE_INTEGER, 1);

const data = buildDemoData(FULL_PLAN, seed);
const trainTasks = Object.values(data.train).flat();
const logs = loggedAnswers(trainTasks);
const probes = recordedProbes(data.eval.envless);

const worker = await startWorker({ model, port: 0 });
try {
  const started = Date.now();
  const scored = await probeFidelity(worker.client.chatModel(), probes, {
    max,
    concurrency: FULL_PLAN.concurrency,
    unseenOnly: true,
    variant,
  });
  const report = missReport(scored.length, missesOf(scored), logs);
  const tenants = domainTenants(trainTasks);
  const sensitivity = await tenantSensitivity(
    worker.client.chatModel(),
    scored,
    tenants,
    FULL_PLAN.concurrency,
    variant,
  );
  const out = {
    model,
    seed,
    rehearsal_prompt: variant,
    minutes: (Date.now() - started) / 60000,
    ...report,
    by_tool_hits: fidelityByTool(scored),
    /** Share of the probes whose answer changes when the tenant line names another world. */
    tenant_sensitivity: sensitivity.probes > 0 ? sensitivity.changed / sensitivity.probes : 0,
    /** … and the share whose real answer differs between the domain's worlds (initial data): the yardstick. */
    world_dependent:
      scored.length > 0
        ? worldDependent(
            scored.map((s) => s.probe),
            trainTasks,
          ) / scored.length
        : 0,
  };
  if (json) process.stdout.write(`${JSON.stringify(out)}\n`);
  else {
    console.log(`unseen recorded calls ${report.probes}: ${report.misses} missed`);
    console.log(
      `  answer changes with the tenant line on ${(100 * out.tenant_sensitivity).toFixed(1)}% of them ` +
        `(the real answer differs between the worlds on ${(100 * out.world_dependent).toFixed(1)}%)`,
    );
    for (const [kind, n] of Object.entries(report.by_kind)) console.log(`  ${kind.padEnd(18)} ${n}`);
    for (const [tool, kinds] of Object.entries(report.by_tool))
      console.log(`  ${tool}: ${JSON.stringify(kinds)}`);
    for (const [kind, misses] of Object.entries(report.examples))
      for (const m of misses)
        console.log(
          `  e.g. ${kind}: ${m.world} ${m.call.name} ${JSON.stringify(m.call.arguments)} → ` +
            `said ${JSON.stringify(m.rehearsed)}, real ${JSON.stringify(m.real)}`,
        );
  }
} finally {
  await worker.stop();
}
