/**
 * `envace eval --bench finmcp[:final|single_step|multi_step|multi_turn] --data PATH`: FinMCP-Bench
 * from a user's copy of its data. `--policy gold` scores the ground truth against itself (all 1),
 * `--policy noop` predicts no calls, `--policy replay:FILE` scores an inference output in upstream's
 * format (the samples with `messages_pred`, matched by id), `--endpoint/--model` runs inference
 * with the replayed tools. Samples marked `error` (or without a prediction) are dropped and
 * counted, as upstream's evaluation drops them.
 */
import { readFileSync } from "node:fs";
import { EnvaceError } from "../../core/errors.js";
import { mapConcurrent } from "../../core/map-concurrent.js";
import type { ToolSchema } from "../../core/tools.js";
import { OpenAIChatModel } from "../../engines/openai-chat-model.js";
import type { BenchRunner, BenchSummary, EvalOptions } from "../registry.js";
import { inferSample } from "./infer.js";
import { FINMCP_FILES, finmcpFile, readFinSamples, type FinMcpVariant } from "./load.js";
import { finReport, scoreSample, type FinReport, type SampleScore } from "./metrics.js";
import type { FinMessage, FinSample } from "./types.js";

const usage = (msg: string) => new EnvaceError("INVALID_CONFIG", msg);

export interface FinMcpSummary extends BenchSummary {
  metrics: FinReport;
  /** Samples left out: marked `error`, or no prediction for them. */
  dropped: number;
  results: SampleScore[];
}

/** Scores predictions (by sample id); samples without one, or with `error`, are dropped. */
export function scoreFinMcp(
  bench: string,
  samples: readonly FinSample[],
  predictions: ReadonlyMap<string, FinMessage[] | "error">,
): FinMcpSummary {
  const scores: SampleScore[] = [];
  for (const s of samples) {
    const pred = predictions.get(String(s.id));
    if (pred === undefined || pred === "error") continue;
    scores.push(scoreSample(s, pred));
  }
  const metrics = finReport(scores);
  return {
    bench,
    tasks: samples.length,
    trials: 1,
    pass_hat_k: {},
    reward_mean: metrics.overall.macro_f1,
    metrics,
    dropped: samples.length - scores.length,
    results: scores,
  };
}

function readToolSchemas(path: string): ToolSchema[] {
  const raw = JSON.parse(readFileSync(path, "utf8")) as unknown[];
  return raw.map((t) => {
    const f = (t as { function?: ToolSchema }).function ?? (t as ToolSchema);
    return { name: f.name, description: f.description ?? "", parameters: f.parameters ?? { type: "object" } };
  });
}

export function finmcpBenchRunner(): BenchRunner {
  return {
    describe: `FinMCP-Bench: finmcp[:${Object.keys(FINMCP_FILES).join("|")}] --data PATH`,
    reads: ["tools"],
    async run(o: EvalOptions & { tools?: string }): Promise<FinMcpSummary> {
      const variant = (o.variant || "final") as FinMcpVariant;
      if (!(variant in FINMCP_FILES))
        throw usage(`unknown FinMCP-Bench file "${o.variant}"; use ${Object.keys(FINMCP_FILES).join(", ")}`);
      if (o.data === undefined)
        throw usage(
          "FinMCP-Bench needs --data: its data (CC BY-NC-SA 4.0) is not shipped; download it and point --data at it",
        );
      if (o.policy !== undefined && o.endpoint !== undefined)
        throw usage("give either --policy or --endpoint/--model, not both");
      let samples = readFinSamples(finmcpFile(o.data, variant));
      if (o.limit !== undefined) samples = samples.slice(0, o.limit);
      const bench = `finmcp:${variant}`;
      const preds = new Map<string, FinMessage[] | "error">();
      if (o.policy === "gold") for (const s of samples) preds.set(String(s.id), s.messages);
      else if (o.policy === "noop") for (const s of samples) preds.set(String(s.id), []);
      else if (o.policy?.startsWith("replay:") && o.policy.length > "replay:".length) {
        for (const p of readFinSamples(o.policy.slice("replay:".length)))
          preds.set(String(p.id), p.error ? "error" : (p.messages_pred ?? "error"));
      } else if (o.policy !== undefined)
        throw usage(`unknown --policy "${o.policy}" for FinMCP-Bench; use gold, noop or replay:FILE`);
      else {
        if (o.endpoint === undefined || o.model === undefined)
          throw usage("an agent is needed: --policy gold|noop|replay:FILE, or --endpoint URL --model NAME");
        const model = new OpenAIChatModel({
          baseURL: o.endpoint,
          model: o.model,
          ...(o.apiKey ? { apiKey: o.apiKey } : {}),
        });
        const schemas = o.tools !== undefined ? readToolSchemas(o.tools) : undefined;
        o.onStart?.(samples.length);
        await mapConcurrent(
          samples,
          o.concurrency,
          async (s) => {
            try {
              preds.set(String(s.id), await inferSample(s, model, schemas ? { schemas } : {}));
            } catch {
              preds.set(String(s.id), "error"); // upstream records a failed inference as an error sample
            }
          },
          (_r, _i, done) => o.onProgress?.(done, samples.length),
        );
      }
      return scoreFinMcp(bench, samples, preds);
    },
  };
}
