import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError } from "../core/errors.js";
import {
  fidelitySpec,
  renderSvg,
  rewardCurveSpec,
  stepLineSpec,
  successSpec,
  type StepPoint,
} from "./charts.js";
import { readLogObjects } from "./log-lines.js";
import { resultsMarkdown } from "./markdown.js";
import { DemoResultsZ, type DemoResults } from "./results.js";
import { isTrainRunDir, readTrainSteps, trainCharts, trainMarkdown } from "./train.js";

/** Reads `results.json` of a run directory, validated. */
export function readResults(runDir: string): DemoResults {
  const file = join(runDir, "results.json");
  if (!existsSync(file))
    throw new EnvaceError("INVALID_DATA_FILE", `${file} does not exist: is this a demo run directory?`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, "utf8"));
  } catch (e) {
    throw new EnvaceError("INVALID_DATA_FILE", `${file} is not valid JSON: ${(e as Error).message}`);
  }
  const parsed = DemoResultsZ.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new EnvaceError("INVALID_DATA_FILE", `${file}: field ${issue.path.join(".")}: ${issue.message}`);
  }
  return parsed.data;
}

/** Every arm's logs named `name`, each seed's a list of its line objects (`readLogObjects`). */
interface ArmLogs {
  arm: string;
  /** One seed: `arms/<arm>/<name>`. Several (`--seeds N`): each `arms/<arm>/seed-<s>/<name>`. */
  logs: Record<string, unknown>[][];
}

/** Reads `name` of every arm of a demo run, arms in name order; no `arms/` gives none. */
function readArmLogs(runDir: string, name: string): ArmLogs[] {
  const armsDir = join(runDir, "arms");
  if (!existsSync(armsDir)) return [];
  return readdirSync(armsDir)
    .sort()
    .map((arm) => ({ arm, logs: armFiles(join(armsDir, arm), name).map(readLogObjects) }));
}

/** An arm's `name` file: `arms/<arm>/<name>` (one seed) or each `arms/<arm>/seed-<s>/<name>` (several). */
function armFiles(dir: string, name: string): string[] {
  if (existsSync(join(dir, name))) return [join(dir, name)];
  return readdirSync(dir)
    .filter((d) => d.startsWith("seed-"))
    .map((d) => join(dir, d, name))
    .filter((f) => existsSync(f));
}

/** The mean `value` of the items of each `key`, with the key's first item, in first-seen order. */
function meansBy<T>(items: readonly T[], key: (t: T) => string, value: (t: T) => number): [T, number][] {
  const groups = new Map<string, { first: T; sum: number; n: number }>();
  for (const t of items) {
    const k = key(t);
    const g = groups.get(k);
    if (g) {
      g.sum += value(t);
      g.n++;
    } else groups.set(k, { first: t, sum: value(t), n: 1 });
  }
  return [...groups.values()].map((g) => [g.first, g.sum / g.n]);
}

/**
 * Per-step rewards of every arm from `arms/<arm>/metrics.jsonl`: the episode reward (`reward_mean`,
 * role "episode") and each role's row-weighted reward (`role.<r>.reward_mean`). A `reward_mean`
 * given as an object per role is read as per-role rewards too. Several seeds: the mean per step
 * and role.
 */
export function readStepPoints(runDir: string): StepPoint[] {
  return stepPoints(readArmLogs(runDir, "metrics.jsonl"));
}

function stepPoints(metrics: readonly ArmLogs[]): StepPoint[] {
  return metrics.flatMap(({ arm, logs }) =>
    meansBy(
      logs.flatMap(stepRewards),
      (p) => `${p.step}|${p.role}`,
      (p) => p.reward,
    ).map(([p, reward]) => ({ arm, step: p.step, role: p.role, reward })),
  );
}

/** One arm's and role's `adv_net_share` at one RL step (mean over seeds). */
export interface NetSharePoint {
  arm: string;
  role: string;
  step: number;
  share: number;
}

/**
 * Each arm's `role.<role>.adv_net_share` per RL step from its metrics.jsonl (the mean over seeds):
 * how much of a role's advantage is left as gradient once a group's identical rows are added up
 * (issue 11: the co-trained rehearser gets about a third of the actor's). Roles not trained, and
 * logs from before the field, give no point; a line cut by a crash is skipped.
 */
export function readNetShares(runDir: string): NetSharePoint[] {
  return netShares(readArmLogs(runDir, "metrics.jsonl"));
}

function netShares(metrics: readonly ArmLogs[]): NetSharePoint[] {
  return metrics.flatMap(({ arm, logs }) => {
    const values = logs.flat().flatMap((line) => {
      const m = line as { step?: unknown; role?: Record<string, { adv_net_share?: unknown } | undefined> };
      if (typeof m.step !== "number") return [];
      const step = m.step;
      return Object.entries(m.role ?? {}).flatMap(([role, stats]) =>
        typeof stats?.adv_net_share === "number" ? [{ role, step, share: stats.adv_net_share }] : [],
      );
    });
    return meansBy(
      values,
      (v) => `${v.role}|${v.step}`,
      (v) => v.share,
    ).map(([v, share]) => ({ arm, role: v.role, step: v.step, share }));
  });
}

/** One arm's success-curve point (`arms/<arm>/curve.jsonl`, written by the demo). */
export interface CurveRow {
  arm: string;
  step: number;
  real: number;
  rehearsed?: number;
}

/**
 * The success curves of every arm: `arms/<arm>/curve.jsonl` (one seed) or the mean per step over
 * `arms/<arm>/seed-<s>/curve.jsonl` (several). Lines cut by a crash are skipped.
 */
export function readCurves(runDir: string): CurveRow[] {
  const rows: CurveRow[] = [];
  for (const { arm, logs } of readArmLogs(runDir, "curve.jsonl")) {
    const byStep = new Map<number, { real: number[]; rehearsed: number[] }>();
    for (const line of logs.flat()) {
      const p = line as { step?: unknown; real?: unknown; rehearsed?: unknown };
      if (typeof p.step !== "number" || typeof p.real !== "number") continue;
      const acc = byStep.get(p.step) ?? { real: [], rehearsed: [] };
      acc.real.push(p.real);
      if (typeof p.rehearsed === "number") acc.rehearsed.push(p.rehearsed);
      byStep.set(p.step, acc);
    }
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    for (const [step, acc] of [...byStep.entries()].sort((a, b) => a[0] - b[0])) {
      rows.push({
        arm,
        step,
        real: avg(acc.real),
        ...(acc.rehearsed.length === acc.real.length ? { rehearsed: avg(acc.rehearsed) } : {}),
      });
    }
  }
  return rows;
}

/** The (step, role, reward) points of one metrics.jsonl's lines. */
function stepRewards(lines: readonly Record<string, unknown>[]): Omit<StepPoint, "arm">[] {
  const out: Omit<StepPoint, "arm">[] = [];
  for (const line of lines) {
    const m = line as {
      step?: unknown;
      reward_mean?: unknown;
      role?: Record<string, { reward_mean?: unknown }>;
    };
    if (typeof m.step !== "number") continue;
    const r = m.reward_mean;
    if (typeof r === "number") out.push({ step: m.step, role: "episode", reward: r });
    const perRole: [string, unknown][] =
      r && typeof r === "object"
        ? Object.entries(r as Record<string, unknown>)
        : Object.entries(m.role ?? {}).map(([role, v]) => [role, v?.reward_mean]);
    for (const [role, v] of perRole) if (typeof v === "number") out.push({ step: m.step, role, reward: v });
  }
  return out;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}

/** Markdown tables and paragraphs of results.md as plain HTML (tables, headings, paragraphs). */
function markdownTablesToHtml(md: string): string {
  const out: string[] = [];
  let rows: string[][] = [];
  const flush = () => {
    if (rows.length === 0) return;
    const [head, ...body] = rows.filter((r) => !r.every((c) => /^-+$/.test(c)));
    out.push(
      `<table><thead><tr>${head!.map((c) => `<th>${escapeHtml(c)}</th>`).join("")}</tr></thead><tbody>` +
        body.map((r) => `<tr>${r.map((c) => `<td>${escapeHtml(c)}</td>`).join("")}</tr>`).join("") +
        "</tbody></table>",
    );
    rows = [];
  };
  for (const line of md.split("\n")) {
    if (line.startsWith("|")) {
      rows.push(
        line
          .slice(1, -1)
          .split("|")
          .map((c) => c.trim()),
      );
      continue;
    }
    flush();
    if (line.startsWith("# ")) continue; // the page has its own title
    if (line.startsWith("## ")) out.push(`<h3>${escapeHtml(line.slice(3))}</h3>`);
    else if (line.startsWith("> ")) out.push(`<p class="note">${escapeHtml(line.slice(2))}</p>`);
    else if (line.trim()) out.push(`<p>${escapeHtml(line)}</p>`);
  }
  flush();
  return out.join("\n");
}

const STYLE = `<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
figure{margin:1.5em 0}pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:13px}
table{border-collapse:collapse;margin:1em 0;font-size:14px}th,td{border:1px solid #ccc;padding:4px 8px;text-align:left}
th{background:#f0f0f0}.note{background:#fff4e0;border-left:4px solid #e8a33d;padding:.5em 1em}</style>`;

/** The page of a train run (`envace train`'s out directory): curves per role and the step table. */
async function buildTrainReportHtml(runDir: string): Promise<string> {
  const steps = readTrainSteps(runDir);
  const charts = await trainCharts(steps);
  const md = trainMarkdown(runDir, steps);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>envace train report</title>
${STYLE}</head>
<body><h1>envace train report</h1>
<p>Run directory: <code>${escapeHtml(runDir)}</code>.</p>
${charts.map(([id, svg]) => `<figure class="chart" id="${id}">${svg}</figure>`).join("\n")}
<h2>Steps</h2>
${markdownTablesToHtml(md)}
<details><summary>Markdown (results.md)</summary><pre>${escapeHtml(md)}</pre></details>
</body></html>
`;
}

/**
 * Builds the self-contained `report.html` (inline SVG charts, no scripts, viewable offline) of a
 * demo run (results.json) or a train run (metrics.jsonl only).
 */
export async function buildReportHtml(runDir: string): Promise<string> {
  if (isTrainRunDir(runDir)) return buildTrainReportHtml(runDir);
  const results = readResults(runDir);
  // metrics.jsonl is read once for both the reward and the net-share charts
  const metrics = readArmLogs(runDir, "metrics.jsonl");
  const points = stepPoints(metrics);
  const episodePoints = points.filter((p) => p.role === "episode");
  const armPoints = episodePoints.length > 0 ? episodePoints : points.filter((p) => p.role === "act");
  const charts: [string, string][] = [];
  if (armPoints.length > 0)
    charts.push([
      "reward-per-arm",
      await renderSvg(rewardCurveSpec(armPoints, "Training reward per RL step (episode success)", "arm")),
    ]);
  const rolePoints = points.filter((p) => p.role !== "episode");
  if (rolePoints.length > 0)
    charts.push([
      "reward-per-role",
      await renderSvg(rewardCurveSpec(rolePoints, "Training reward per RL step and role", "series")),
    ]);
  const curves = readCurves(runDir);
  if (curves.length > 0) {
    charts.push([
      "success-per-step",
      await renderSvg(
        stepLineSpec(
          curves.map((c) => ({ arm: c.arm, step: c.step, value: c.real })),
          "Success in the real environments over RL steps (env-less subset)",
          "success",
          [0, 1],
        ),
      ),
    ]);
    const gaps = curves.flatMap((c) =>
      c.rehearsed === undefined ? [] : [{ arm: c.arm, step: c.step, value: c.rehearsed - c.real }],
    );
    if (gaps.length > 0)
      charts.push([
        "co-adaptation-gap",
        await renderSvg(
          stepLineSpec(
            gaps,
            "Co-adaptation gap over RL steps: rehearsed-world success minus real success",
            "rehearsed − real",
          ),
        ),
      ]);
  }
  const shares = netShares(metrics);
  if (shares.length > 0)
    charts.push([
      "advantage-net-share",
      await renderSvg(
        stepLineSpec(
          shares.map((p) => ({ arm: `${p.arm} · ${p.role}`, step: p.step, value: p.share })),
          "Advantage left once identical rows are added up, per RL step, arm and role",
          "net share of |advantage|",
          [0, 1],
          "arm · role",
        ),
      ),
    ]);
  charts.push(["success", await renderSvg(successSpec(results))]);
  if (results.arms.some((a) => a.fidelity)) charts.push(["fidelity", await renderSvg(fidelitySpec(results))]);

  const table = resultsMarkdown(results);
  const tables = markdownTablesToHtml(table);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>envace demo report</title>
${STYLE}</head>
<body><h1>envace demo report</h1>
<p>Run directory: <code>${escapeHtml(runDir)}</code>. Every success number below was measured by running each arm's
policy in the real environments.</p>
${charts.map(([id, svg]) => `<figure class="chart" id="${id}">${svg}</figure>`).join("\n")}
<h2>Results</h2>
${tables}
<details><summary>Markdown (results.md)</summary><pre>${escapeHtml(table)}</pre></details>
</body></html>
`;
}

/** Writes `report.html` and `results.md` into the run directory; returns the report's path. */
export async function writeReport(runDir: string): Promise<string> {
  const html = await buildReportHtml(runDir);
  const out = join(runDir, "report.html");
  writeFileSync(out, html);
  const md = isTrainRunDir(runDir)
    ? trainMarkdown(runDir, readTrainSteps(runDir))
    : resultsMarkdown(readResults(runDir));
  writeFileSync(join(runDir, "results.md"), md);
  return out;
}
