import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EnvaceError } from "../core/errors.js";
import { fidelitySpec, renderSvg, rewardCurveSpec, successSpec, type StepPoint } from "./charts.js";
import { resultsMarkdown } from "./markdown.js";
import { DemoResultsZ, type DemoResults } from "./results.js";

/** Reads `results.json` of a run directory, validated. */
export function readResults(runDir: string): DemoResults {
  const file = join(runDir, "results.json");
  if (!existsSync(file)) throw new EnvaceError("INVALID_DATA_FILE", `${file} does not exist: is this a demo run directory?`);
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

/**
 * Per-step rewards of every arm from `arms/<arm>/metrics.jsonl`. `reward_mean` may be a number or
 * an object per role (`{act, rehearse}`); both are accepted.
 */
export function readStepPoints(runDir: string): StepPoint[] {
  const armsDir = join(runDir, "arms");
  if (!existsSync(armsDir)) return [];
  const points: StepPoint[] = [];
  for (const arm of readdirSync(armsDir).sort()) {
    const file = join(armsDir, arm, "metrics.jsonl");
    if (!existsSync(file)) continue;
    for (const line of readFileSync(file, "utf8").split("\n")) {
      if (line.trim() === "") continue;
      let m: { step?: unknown; reward_mean?: unknown };
      try {
        m = JSON.parse(line) as typeof m;
      } catch {
        continue; // a line cut by a crash: skip it rather than lose the whole report
      }
      if (typeof m.step !== "number") continue;
      const r = m.reward_mean;
      if (typeof r === "number") points.push({ arm, step: m.step, role: "all", reward: r });
      else if (r && typeof r === "object") {
        for (const [role, v] of Object.entries(r as Record<string, unknown>)) {
          if (typeof v === "number") points.push({ arm, step: m.step, role, reward: v });
        }
      }
    }
  }
  return points;
}

function escapeHtml(s: string): string {
  return s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);
}

/** Builds the self-contained `report.html` (inline SVG charts, no scripts, viewable offline). */
export async function buildReportHtml(runDir: string): Promise<string> {
  const results = readResults(runDir);
  const points = readStepPoints(runDir);
  const actPoints = points.filter((p) => p.role === "act" || p.role === "all");
  const charts: [string, string][] = [];
  if (actPoints.length > 0) charts.push(["reward-per-arm", await renderSvg(rewardCurveSpec(actPoints, "Training reward per RL step (act role)", "arm"))]);
  const rolePoints = points.filter((p) => p.role !== "all");
  if (rolePoints.length > 0) charts.push(["reward-per-role", await renderSvg(rewardCurveSpec(rolePoints, "Training reward per RL step and role", "series"))]);
  charts.push(["success", await renderSvg(successSpec(results))]);
  if (results.arms.some((a) => a.fidelity)) charts.push(["fidelity", await renderSvg(fidelitySpec(results))]);

  const table = resultsMarkdown(results);
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>envace demo report</title>
<style>body{font-family:system-ui,sans-serif;max-width:1100px;margin:2em auto;padding:0 1em;color:#222}
figure{margin:1.5em 0}pre{background:#f6f6f6;padding:1em;overflow-x:auto;font-size:13px}</style></head>
<body><h1>envace demo report</h1>
<p>Run directory: <code>${escapeHtml(runDir)}</code>. Every success number below was measured by running each arm's
policy in the real environments.</p>
${charts.map(([id, svg]) => `<figure class="chart" id="${id}">${svg}</figure>`).join("\n")}
<h2>Table</h2><pre>${escapeHtml(table)}</pre>
</body></html>
`;
}

/** Writes `report.html` and `results.md` into the run directory; returns the report's path. */
export async function writeReport(runDir: string): Promise<string> {
  const html = await buildReportHtml(runDir);
  const out = join(runDir, "report.html");
  writeFileSync(out, html);
  writeFileSync(join(runDir, "results.md"), resultsMarkdown(readResults(runDir)));
  return out;
}
