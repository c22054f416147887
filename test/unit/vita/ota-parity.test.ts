/**
 * OTA and cross-domain tool results and final DB hashes equal upstream's, call by call. Upstream's
 * OTA and cross-domain task files are not available here, so the states are the clearly synthetic
 * tasks of fixtures/make_synthetic_tasks.py; the expected results were produced by upstream's own
 * Python (fixtures/generate_ota_fixtures.py: its `ota` environment, and
 * `get_cross_environment("delivery,instore,ota")` for the union) replaying the same calls with the
 * same injected clock; fixtures/ota-random.json adds random sequences of valid, wrong and wrongly
 * typed arguments (fixtures/generate_ota_random_calls.py).
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { DOMAIN_TOOLS, VitaEnvironment } from "../../../src/envs/vita/environment.js";
import { OTA_TOOLS } from "../../../src/envs/vita/tools-ota.js";
import { parsePy, type PyValue } from "../../../src/envs/vita/py-value.js";
import { expectUpstreamReplay, type FixtureClock, type UpstreamRun } from "./upstream-replay.js";

const SYNTHETIC = new URL("fixtures/synthetic/vitabench/", import.meta.url);

interface Fixture {
  clock: FixtureClock;
  synthetic: boolean;
  tasks: (UpstreamRun & { task_id: string })[];
}

for (const domain of ["ota", "cross_domain"] as const) {
  describe(`VitaBench ${domain} tools match upstream (synthetic states)`, () => {
    const fixture = JSON.parse(
      readFileSync(new URL(`fixtures/${domain}.json`, import.meta.url), "utf8"),
    ) as Fixture;
    const tasks = parsePy(readFileSync(new URL(`${domain}/tasks_en.json`, SYNTHETIC), "utf8")) as Map<
      string,
      PyValue
    >[];

    it("offers upstream's tool list, every one executable, and the fixtures call each OTA tool", () => {
      for (const lang of ["en", "zh"] as const) {
        const env = new VitaEnvironment(domain, tasks[0]!.get("environment") as PyValue, { lang });
        const offered = env.tools().map((t) => t.name);
        expect(offered.length).toBe(domain === "ota" ? 38 : 66);
        expect(new Set(offered)).toEqual(new Set(DOMAIN_TOOLS[domain].map((t) => t.name)));
      }
      const called = new Set(fixture.tasks.flatMap((t) => t.steps.map((s) => s.name)));
      for (const t of OTA_TOOLS) if (domain === "ota") expect(called, t.name).toContain(t.name);
    });

    const random = (
      JSON.parse(readFileSync(new URL("fixtures/ota-random.json", import.meta.url), "utf8")) as Record<
        string,
        Fixture
      >
    )[domain]!;
    for (const [what, fx] of [
      ["hand-written calls", fixture],
      ["random calls", random],
    ] as const) {
      for (const expected of fx.tasks) {
        it(`task ${expected.task_id}, ${what}: ${expected.steps.length} calls`, () => {
          const task = tasks.find((t) => t.get("id") === expected.task_id);
          expect(task).toBeDefined();
          expectUpstreamReplay(domain, task!.get("environment") as PyValue, fx.clock, expected);
        });
      }
    }
  });
}
