import { existsSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError } from "../core/errors.js";
import { renderSvg, stepLineSpec } from "./charts.js";
import { readLogObjects } from "./log-lines.js";

/**
 * The report of a run directory written by `envace train` (metrics.jsonl at its top, no
 * results.json): per-step tables and curves per role. Only the fields the report shows are read, so
 * an older or newer metrics line still renders; a missing number is a gap, not a zero.
 */

/** The roles a train run reports on, in the order the tables list them. */
const ROLES = ["act", "rehearse"] as const;
type Role = (typeof ROLES)[number];

export interface TrainRoleStep {
  reward: number | null;
  adv_std: number | null;
  adv_mean: number | null;
  /** Share of the advantages left once identical rows are added up (absent in older runs). */
  adv_net_share: number | null;
  response_len: number | null;
  ratio: number | null;
  rows: number | null;
}

export interface TrainStep {
  step: number;
  timestamp: string | null;
  reward: number | null;
  success: number | null;
  env_calls: number | null;
  role: Record<Role, TrainRoleStep>;
  eval_success: number | null;
}

/** A train run directory: metrics.jsonl at its top and no demo results.json. */
export function isTrainRunDir(runDir: string): boolean {
  return existsSync(join(runDir, "metrics.jsonl")) && !existsSync(join(runDir, "results.json"));
}

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const obj = (v: unknown): Record<string, unknown> =>
  v && typeof v === "object" ? (v as Record<string, unknown>) : {};

/**
 * The steps of a train run's metrics.jsonl, one per step in step order. A step logged twice (redone
 * after a worker restart, or repeated by a resume) keeps its last line, the one training went on
 * from; a line cut by a crash is skipped.
 */
export function readTrainSteps(runDir: string): TrainStep[] {
  const file = join(runDir, "metrics.jsonl");
  if (!existsSync(file))
    throw new EnvaceError("INVALID_DATA_FILE", `${file} does not exist: is this a train run directory?`);
  const bySteps = new Map<number, TrainStep>();
  for (const m of readLogObjects(file)) {
    const step = num(m.step);
    if (step === null) continue;
    const roleStats = obj(m.role);
    const ratio = obj(m.ratio);
    const rows = obj(m.rows);
    const role = Object.fromEntries(
      ROLES.map((r) => {
        const s = obj(roleStats[r]);
        return [
          r,
          {
            reward: num(s.reward_mean),
            adv_mean: num(s.adv_mean),
            adv_std: num(s.adv_std),
            adv_net_share: num(s.adv_net_share),
            response_len: num(s.response_len_mean),
            ratio: num(obj(ratio[r]).mean),
            rows: num(rows[r]),
          },
        ];
      }),
    ) as Record<Role, TrainRoleStep>;
    bySteps.set(step, {
      step,
      timestamp: typeof m.timestamp === "string" ? m.timestamp : null,
      reward: num(m.reward_mean),
      success: num(m.success_rate),
      env_calls: num(m.env_calls),
      role,
      eval_success: num(obj(m.eval).success_rate),
    });
  }
  const steps = [...bySteps.values()].sort((a, b) => a.step - b.step);
  if (steps.length === 0)
    throw new EnvaceError("INVALID_DATA_FILE", `${file} has no step lines: did the run train any step?`);
  return steps;
}

/** The run's provenance from runs.jsonl (first start) and config.resolved.json, when present. */
function runHeader(runDir: string): string[] {
  const out: string[] = [];
  const runs = join(runDir, "runs.jsonl");
  if (existsSync(runs)) {
    const starts = readLogObjects(runs);
    const first = starts[0];
    if (first)
      out.push(
        `envace ${String(first.envace_version ?? "?")}, commit ${String(first.git_commit ?? "?")}` +
          `${first.git_dirty === true ? " (uncommitted changes)" : ""}, started ${String(first.started_at ?? "?")}` +
          (starts.length > 1 ? `, resumed ${starts.length - 1} time(s)` : "") +
          ".",
      );
  }
  if (existsSync(join(runDir, "config.resolved.json")))
    out.push("The configuration that ran is in `config.resolved.json`.");
  return out;
}

const f3 = (x: number | null) => (x === null ? "–" : x.toFixed(3));
const f1 = (x: number | null) => (x === null ? "–" : x.toFixed(1));

/** results.md of a train run: provenance, then one row per step with each role's numbers. */
export function trainMarkdown(runDir: string, steps: readonly TrainStep[]): string {
  const last = steps[steps.length - 1]!;
  const out = [
    "# envace train run",
    "",
    ...runHeader(runDir).flatMap((l) => [l, ""]),
    `${steps.length} step(s), last step ${last.step}` +
      (last.timestamp ? ` at ${last.timestamp}` : "") +
      `; final episode reward ${f3(last.reward)}.`,
    "",
    "| step | time | reward | success | env calls | " +
      ROLES.map((r) => `${r} rows | ${r} reward | ${r} adv std | ${r} len | ${r} ratio`).join(" | ") +
      " | eval success |",
    "|" + "---|".repeat(6 + 5 * ROLES.length),
  ];
  for (const s of steps) {
    const roles = ROLES.map((r) => {
      const x = s.role[r];
      return `${x.rows ?? "–"} | ${f3(x.reward)} | ${f3(x.adv_std)} | ${f1(x.response_len)} | ${f3(x.ratio)}`;
    });
    out.push(
      `| ${s.step} | ${s.timestamp ?? "–"} | ${f3(s.reward)} | ${f3(s.success)} | ${s.env_calls ?? "–"} | ${roles.join(
        " | ",
      )} | ${f3(s.eval_success)} |`,
    );
  }
  out.push(
    "",
    "Reward is the mean episode reward; per role, the row-weighted reward, the spread of the advantages" +
      " (their mean is 0 by construction), the mean sampled tokens per row, and the PPO ratio π/π_old at" +
      " the step's update (1 up to rounding; – where the engine does not report it).",
  );
  return out.join("\n") + "\n";
}

/** The curves of a train run: [figure id, svg], one chart per measure with a line per role. */
export async function trainCharts(steps: readonly TrainStep[]): Promise<[string, string][]> {
  const series = (pick: (s: TrainStep, r: Role) => number | null) =>
    steps.flatMap((s) =>
      ROLES.flatMap((r) => {
        const v = pick(s, r);
        return v === null ? [] : [{ arm: r, step: s.step, value: v }];
      }),
    );
  const measures: [string, string, string, (s: TrainStep, r: Role) => number | null][] = [
    ["reward-per-role", "Reward per RL step and role", "mean reward", (s, r) => s.role[r].reward],
    [
      "advantage-per-role",
      "Advantage spread (std) per RL step and role",
      "advantage std",
      (s, r) => s.role[r].adv_std,
    ],
    [
      "advantage-net-share-per-role",
      "Advantage left once identical rows are added up, per RL step and role",
      "net share of |advantage|",
      (s, r) => s.role[r].adv_net_share,
    ],
    [
      "response-length-per-role",
      "Response length per RL step and role",
      "tokens per row",
      (s, r) => s.role[r].response_len,
    ],
    ["ratio-per-role", "PPO ratio π/π_old per RL step and role", "ratio", (s, r) => s.role[r].ratio],
  ];
  const charts: [string, string][] = [];
  for (const [id, title, yTitle, pick] of measures) {
    const points = series(pick);
    if (points.length > 0)
      charts.push([id, await renderSvg(stepLineSpec(points, title, yTitle, undefined, "role"))]);
  }
  return charts;
}
