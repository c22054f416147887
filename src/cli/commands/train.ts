import type { Command } from "commander";
import { join } from "node:path";
import { EnvaceError } from "../../core/errors.js";
import { latestCheckpoint } from "../../train/checkpoint.js";
import { loadTrainConfig } from "../../train/config.js";
import { deterministicConfig, resumeWarnings } from "../../train/deterministic.js";
import { trainFromConfig } from "../../train/run.js";
import { stepWarnings } from "../../train/preflight.js";
import { writeRunInfo } from "../../train/run-info.js";
import { outputDirProblem } from "../output-dir.js";
import { trainProgress } from "../train-progress.js";

interface TrainFlags {
  config: string;
  resume?: boolean;
  out: string;
  json?: boolean;
  verbose?: boolean;
  deterministic?: boolean;
}

/** `envace train`: the RL loop (rehearsal | simulator | real) from a config file. */
export function register(program: Command): void {
  program
    .command("train")
    .description(
      "Train the policy with role-wise GRPO (world rehearsal, a frozen simulator, or real environments)",
    )
    .requiredOption("--config <file>", "training config (YAML or JSON); see examples/")
    .option(
      "--out <dir>",
      "output folder: metrics.jsonl, checkpoints/, config.resolved.json, runs.jsonl (version, commit, start)",
      "runs/train",
    )
    .option("--resume", "continue from the latest checkpoint in --out")
    .option(
      "--deterministic",
      "repeatable runs: one model call at a time and no prefix cache in the workers envace starts, " +
        "so the same seed and config give the same metrics.jsonl except its wall-clock fields " +
        "(timestamp, time); slower. Same as `deterministic: true` in the config",
    )
    .option("--json", "print a final summary object on stdout")
    .option("--verbose", "echo the worker's log to stderr")
    .action(async (flags: TrainFlags) => {
      const badOut = outputDirProblem("--out", flags.out);
      if (badOut) throw new EnvaceError("INVALID_CONFIG", badOut);
      const loaded = loadTrainConfig(flags.config);
      // Resolved here so that config.resolved.json records what ran (concurrency 1, worker args).
      const config = deterministicConfig(flags.deterministic ? { ...loaded, deterministic: true } : loaded);
      if (flags.resume && !latestCheckpoint(flags.out)) {
        throw new EnvaceError("INVALID_CONFIG", `--resume: no checkpoint in ${flags.out} to resume from`);
      }
      writeRunInfo(flags.out, config);
      // Progress on stderr (a bar on a terminal, plain lines otherwise); stdout stays for --json.
      const progress = trainProgress(config.steps);
      if (flags.resume) resumeWarnings(config).forEach((w) => progress.warn(w));
      // A step that changed no weights is warned about; a run where no step did fails.
      const trainedRoles = { act: config.roles.act === "train", rehearse: config.roles.rehearse === "train" };
      let trainedSteps = 0;
      let summary;
      try {
        summary = await trainFromConfig(config, {
          outDir: flags.out,
          resume: flags.resume === true,
          onSftStep: (s) => progress.sftStep(s),
          onEpisode: (done, total) => progress.episode(done, total),
          onWarning: (w) => progress.warn(w),
          onStep: (m) => {
            const check = stepWarnings(m, trainedRoles);
            if (check.trained) trainedSteps++;
            progress.step(m);
            check.warnings.forEach((w) => progress.warn(w));
          },
          ...(flags.verbose ? { onWorkerLog: (l: string) => process.stderr.write(`[worker] ${l}\n`) } : {}),
        });
      } finally {
        progress.stop();
      }
      if (flags.json) process.stdout.write(JSON.stringify(summary) + "\n");
      const ran = summary.last_step - summary.first_step + 1;
      if (ran > 0 && trainedSteps === 0) {
        process.stderr.write(
          `envace train: trained nothing: none of the ${ran} steps updated the model (see the warnings above)\n`,
        );
        process.exitCode = 1;
      } else if (!flags.json) {
        process.stderr.write(
          `done: ${summary.last_step} steps; metrics in ${join(flags.out, "metrics.jsonl")}\n`,
        );
      }
    });
}
