/**
 * Tool results and final DB hashes equal upstream's, call by call, on sampled tasks of each domain.
 * The fixtures were produced by upstream's own Python (fixtures/generate_fixtures.py) replaying the
 * same call sequences with the same injected clock.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parsePy, type PyValue } from "../../../src/envs/vita/py-value.js";
import { expectUpstreamReplay, type FixtureClock, type UpstreamRun } from "./upstream-replay.js";

const DATA = new URL("../../../../shared/data/vitabench/", import.meta.url);

interface Fixture {
  clock: FixtureClock;
  tasks: (UpstreamRun & { task_id: string })[];
}

for (const domain of ["delivery", "instore"] as const) {
  describe(`VitaBench ${domain} tools match upstream`, () => {
    const fixture = JSON.parse(
      readFileSync(new URL(`fixtures/${domain}.json`, import.meta.url), "utf8"),
    ) as Fixture;
    const tasks = parsePy(readFileSync(new URL(`${domain}/tasks_en.json`, DATA), "utf8")) as Map<
      string,
      PyValue
    >[];
    for (const expected of fixture.tasks) {
      it(`task ${expected.task_id}: ${expected.steps.length} calls`, () => {
        const task = tasks.find((t) => t.get("id") === expected.task_id);
        expect(task).toBeDefined();
        expectUpstreamReplay(domain, task!.get("environment") as PyValue, fixture.clock, expected);
      });
    }
  });
}
