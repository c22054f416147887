import * as vega from "vega";
import * as vegaLite from "vega-lite";
import type { TopLevelSpec } from "vega-lite";
import type { DemoResults } from "./results.js";

/** One step of one arm's training, flattened for plotting. */
export interface StepPoint {
  arm: string;
  step: number;
  role: string;
  reward: number;
}

/** Renders a Vega-Lite spec to a standalone SVG string in Node (no browser, no canvas). */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const compiled = vegaLite.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

export function rewardCurveSpec(
  points: StepPoint[],
  title: string,
  colorField: "arm" | "series",
): TopLevelSpec {
  const values = points.map((p) => ({ ...p, series: `${p.arm} · ${p.role}` }));
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    width: 520,
    height: 260,
    data: { values },
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "step", type: "quantitative", title: "RL step", axis: { tickMinStep: 1, format: "d" } },
      y: { field: "reward", type: "quantitative", title: "mean reward", scale: { domain: [0, 1] } },
      color: { field: colorField, type: "nominal", title: colorField === "arm" ? "arm" : "arm · role" },
    },
  };
}

/** One value per (arm, step): a line per arm (success over RL steps, or the co-adaptation gap). */
export function stepLineSpec(
  points: readonly { arm: string; step: number; value: number }[],
  title: string,
  yTitle: string,
  domain?: [number, number],
  colorTitle = "arm",
): TopLevelSpec {
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title,
    width: 520,
    height: 260,
    data: { values: points.map((p) => ({ ...p })) },
    mark: { type: "line", point: true },
    encoding: {
      x: { field: "step", type: "quantitative", title: "RL step", axis: { tickMinStep: 1, format: "d" } },
      y: { field: "value", type: "quantitative", title: yTitle, ...(domain ? { scale: { domain } } : {}) },
      color: { field: "arm", type: "nominal", title: colorTitle },
    },
  };
}

export function successSpec(results: DemoResults): TopLevelSpec {
  const splits = [
    ["env_domain", "env domain"],
    ["envless", "env-less domains"],
    ["heldout_domain", "held-out domain"],
  ] as const;
  const values = results.arms.flatMap((a) =>
    splits.map(([key, label]) => {
      const m = a.success[key];
      const mean = m.mean ?? 0;
      const ci = m.ci95 !== null && Number.isFinite(m.ci95) ? m.ci95 : 0;
      return { arm: a.name, split: label, mean, lo: Math.max(0, mean - ci), hi: Math.min(1, mean + ci) };
    }),
  );
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: "Success in the real environments (95% CI)",
    data: { values },
    facet: { column: { field: "split", type: "nominal", title: null } },
    spec: {
      width: 200,
      height: 220,
      layer: [
        {
          mark: "bar",
          encoding: {
            x: { field: "arm", type: "nominal", title: null, sort: null },
            y: { field: "mean", type: "quantitative", title: "success", scale: { domain: [0, 1] } },
            color: { field: "arm", type: "nominal", legend: null },
          },
        },
        {
          mark: { type: "errorbar", ticks: true },
          encoding: {
            x: { field: "arm", type: "nominal", sort: null },
            y: { field: "lo", type: "quantitative", title: "success" },
            y2: { field: "hi" },
          },
        },
      ],
    },
  };
}

export function fidelitySpec(results: DemoResults): TopLevelSpec {
  const values = results.arms.flatMap((a) =>
    a.fidelity
      ? [
          { arm: a.name, measure: "exact (recorded calls)", value: a.fidelity.recorded.exact },
          { arm: a.name, measure: "field F1 (recorded calls)", value: a.fidelity.recorded.f1 },
          { arm: a.name, measure: "exact (own calls)", value: a.fidelity.own_calls.exact },
        ]
      : [],
  );
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    title: "Rehearsal fidelity against the real environment",
    width: 520,
    height: 220,
    data: { values },
    mark: "bar",
    encoding: {
      x: { field: "arm", type: "nominal", sort: null },
      xOffset: { field: "measure", type: "nominal" },
      y: { field: "value", type: "quantitative", scale: { domain: [0, 1] }, title: "fidelity" },
      color: { field: "measure", type: "nominal" },
    },
  };
}
