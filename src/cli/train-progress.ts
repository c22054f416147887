import cliProgress from "cli-progress";
import type { StepMetrics } from "../train/step-metrics.js";

/** How `envace train` reports progress on stderr. */
export interface TrainProgress {
  sftStep(s: { step: number; steps: number; loss: number }): void;
  episode(done: number, total: number): void;
  step(m: StepMetrics): void;
  warn(message: string): void;
  stop(): void;
}

const fmt = (x: number | null, digits = 3) => (x === null ? "-" : x.toFixed(digits));

/** One plain line per step: what a log file or CI needs (no bar redraws, nothing lost). */
export function stepLine(m: StepMetrics, total: number): string {
  const t = m.time.sample + m.time.train;
  return (
    `step ${m.step}/${total} reward ${fmt(m.reward_mean)} success ${fmt(m.success_rate, 2)}` +
    ` rows act ${m.rows.act} rehearse ${m.rows.rehearse}` +
    ` tokens act ${m.tokens.act} rehearse ${m.tokens.rehearse}` +
    ` env_calls ${m.env_calls} loss ${fmt(m.loss, 4)} time ${t.toFixed(1)}s` +
    (m.eval ? ` eval success ${fmt(m.eval.success_rate, 2)} env_calls ${m.eval.env_calls}` : "")
  );
}

/**
 * A progress bar on a terminal; plain lines otherwise (stderr redirected to a file, CI), where a
 * bar's redraws would be noise and its last state all that survived.
 */
export function trainProgress(totalSteps: number, tty = process.stderr.isTTY === true): TrainProgress {
  const out = (line: string) => void process.stderr.write(line + "\n");
  if (!tty) {
    return {
      sftStep: (s) => {
        if (s.step === 1 || s.step === s.steps || s.step % 10 === 0) {
          out(`sft ${s.step}/${s.steps} loss ${s.loss.toFixed(4)}`);
        }
      },
      episode: () => {},
      step: (m) => out(stepLine(m, totalSteps)),
      warn: (msg) => out(`warning: ${msg}`),
      stop: () => {},
    };
  }
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: "train |{bar}| step {value}/{total} | reward {reward} | {status}",
      hideCursor: false,
    },
    cliProgress.Presets.shades_classic,
  );
  bar.start(totalSteps, 0, { reward: "-", status: "starting worker" });
  return {
    sftStep: (s) => bar.update({ status: `sft warm-up ${s.step}/${s.steps} loss ${s.loss.toFixed(3)}` }),
    episode: (done, total) => bar.update({ status: `episodes ${done}/${total}` }),
    step: (m) =>
      bar.update(m.step, {
        reward: fmt(m.reward_mean),
        status: m.eval ? `eval success ${(m.eval.success_rate * 100).toFixed(0)}%` : "",
      }),
    warn: (msg) => out(`\nwarning: ${msg}`),
    stop: () => bar.stop(),
  };
}
