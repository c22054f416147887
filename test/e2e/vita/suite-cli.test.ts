/** `envace eval --suite paper`: every part runs through the CLI's registry; what cannot run is listed. */
import { mkdirSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { envaceAsync as runAsync, envaceSync } from "../../cli.js";
import { mockServersClosedAfterEach } from "../../mock-servers.js";
import type { MockChatBody } from "../../../src/testing/index.js";

const startServer = mockServersClosedAfterEach();

/** As `envace` below, without blocking this process (a mock server here must answer). */
const envaceAsync = (...args: string[]) => runAsync("eval", ...args);

const envace = (...args: string[]) => envaceSync(["eval", ...args], { timeout: 240_000 });

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
    // OTA and cross-domain run when their task files are present; ../shared/data has none
    for (const d of ["ota", "cross_domain"])
      expect(s.table.parts.find((p) => p.bench === `vita:${d}`)?.not_run).toMatch(
        new RegExp(`vitabench/${d}/tasks_en\\.json not found; run \`envace data fetch vitabench\``),
      );
    expect(s.table.overall).toBeNull();
    expect(s.table.not_run).toContain("overall: needs BFCL-v4, τ² and VitaBench all scored");
  }, 240_000);

  it("includes VitaBench OTA and cross-domain when their task files are present", async () => {
    // A data folder with the shared benchmarks plus the synthetic OTA and cross-domain task files.
    const shared = resolve("../shared/data");
    const data = mkdtempSync(join(tmpdir(), "suite-data-"));
    onTestFinished(() => rmSync(data, { recursive: true, force: true })); // removes the links, not their targets
    for (const name of readdirSync(shared))
      if (name !== "vitabench") symlinkSync(join(shared, name), join(data, name));
    mkdirSync(join(data, "vitabench"));
    for (const d of ["delivery", "instore"])
      symlinkSync(join(shared, "vitabench", d), join(data, "vitabench", d));
    for (const d of ["ota", "cross_domain"])
      symlinkSync(resolve("test/unit/vita/fixtures/synthetic/vitabench", d), join(data, "vitabench", d));
    const judge = await startServer({
      handler: (body: MockChatBody) => {
        const rubrics = JSON.parse(
          /<current_rubrics>\n([\s\S]*)\n<\/current_rubrics>/.exec(body.messages[1]!.content!)![1]!,
        ) as { rubric_idx: string }[];
        return JSON.stringify(
          rubrics.map((x) => ({ rubric_idx: x.rubric_idx, justification: "ok", meetExpectation: true })),
        );
      },
    });
    const r = await envaceAsync(
      "--suite",
      "paper",
      "--limit",
      "1",
      "--policy",
      "noop",
      "--data",
      data,
      "--judge-endpoint",
      judge.url,
      "--judge-model",
      "j",
      "--json",
    );
    expect(r.code, r.stderr).toBe(0);
    const s = JSON.parse(r.stdout) as {
      table: {
        parts: { bench: string; score: number | null; not_run?: string }[];
        vita_average: number | null;
      };
    };
    for (const d of ["delivery", "instore", "ota", "cross_domain"])
      expect(
        s.table.parts.find((p) => p.bench === `vita:${d}`),
        d,
      ).toMatchObject({ score: 1 });
    expect(s.table.vita_average).toBe(1);
  }, 240_000);

  it("needs exactly one of --bench and --suite", () => {
    const r = envace("--policy", "noop");
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/give one of --bench NAME or --suite paper/);
  }, 60_000);
});
