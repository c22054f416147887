/** `envace eval --suite paper`: every part runs through the CLI's registry; what cannot run is listed. */
import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";

const envace = (...args: string[]) => {
  const r = spawnSync("npx", ["tsx", "src/cli/main.ts", "eval", ...args], {
    encoding: "utf8",
    timeout: 240_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

describe("envace eval --suite paper", () => {
  it("--limit 1 --policy noop: τ² parts are scored, unjudged VitaBench parts and Overall are reported as not run", () => {
    const r = envace("--suite", "paper", "--limit", "1", "--policy", "noop", "--json");
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as {
      bench: string;
      table: {
        parts: { bench: string; score: number | null; not_run?: string }[];
        overall: number | null;
        tau2_average: number | null;
        not_run: string[];
      };
    };
    expect(s.bench).toBe("suite:paper");
    expect(s.table.parts.map((p) => p.bench)).toEqual([
      "bfcl",
      "tau2:airline",
      "tau2:retail",
      "tau2:telecom",
      "vita:delivery",
      "vita:instore",
      "vita:ota",
      "vita:cross_domain",
      "finmcp",
    ]);
    for (const d of ["airline", "retail", "telecom"])
      expect(typeof s.table.parts.find((p) => p.bench === `tau2:${d}`)?.score).toBe("number");
    expect(s.table.tau2_average).not.toBeNull();
    expect(s.table.parts.find((p) => p.bench === "vita:delivery")?.not_run).toMatch(/nothing was scored/);
    expect(s.table.overall).toBeNull();
    expect(s.table.not_run).toContain("overall: needs BFCL-v4, τ² and VitaBench all scored");
  }, 240_000);

  it("needs exactly one of --bench and --suite", () => {
    const r = envace("--policy", "noop");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/give one of --bench NAME or --suite paper/);
  }, 60_000);
});
