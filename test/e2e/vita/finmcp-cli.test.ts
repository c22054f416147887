/** `envace eval --bench finmcp` on the synthetic files of test/unit/finmcp/fixtures (FinMCP-Bench's own data is not shipped). */
import { describe, expect, it } from "vitest";
import { envaceSync } from "../../cli.js";

const FIX = "test/unit/finmcp/fixtures";
const envace = (...args: string[]) => envaceSync(["eval", ...args], { timeout: 120_000 });

describe("envace eval --bench finmcp", () => {
  it("scores an inference output file as the paper's script does", () => {
    const r = envace(
      "--bench",
      "finmcp",
      "--data",
      `${FIX}/synthetic-benchmark.json`,
      "--policy",
      `replay:${FIX}/synthetic-predictions.json`,
      "--json",
    );
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as {
      dropped: number;
      reward_mean: number;
      metrics: { overall: Record<string, number> };
    };
    expect(s).toMatchObject({ dropped: 1, reward_mean: 0.7333 });
    expect(s.metrics.overall).toMatchObject({ macro_precision: 0.7778, micro_f1: 0.6667, emr: 0.3333, n: 3 });
  }, 60_000);

  it("without --data says where the data comes from", () => {
    const r = envace("--bench", "finmcp", "--policy", "gold");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/FinMCP-Bench needs --data: its data \(CC BY-NC-SA 4\.0\) is not shipped/);
  }, 60_000);
});
