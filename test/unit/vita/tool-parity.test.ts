/**
 * Tool results and final DB hashes equal upstream's, call by call, on sampled tasks of each domain.
 * The fixtures were produced by upstream's own Python (fixtures/generate_fixtures.py) replaying the
 * same call sequences with the same injected clock.
 */
import { readFileSync } from "node:fs";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { VitaEnvironment } from "../../../src/envs/vita/environment.js";
import { parsePy, type PyValue } from "../../../src/envs/vita/py-value.js";

const DATA = new URL("../../../../shared/data/vitabench/", import.meta.url);

interface Step {
  name: string;
  arguments: Record<string, unknown>;
  error: boolean;
  result?: string;
  result_sha256?: string;
}
interface Fixture {
  clock: { start: number; step: number };
  tasks: { task_id: string; steps: Step[]; db_hash: string; db_dump_sha256: string }[];
}

const sha = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

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
        let k = 0;
        const clock = () => fixture.clock.start + k++ * fixture.clock.step;
        const env = new VitaEnvironment(domain, task!.get("environment") as PyValue, { clock });
        expected.steps.forEach((step, i) => {
          const r = env.callSync({ id: `c${i}`, name: step.name, arguments: step.arguments });
          const text = r.ok ? r.content : `Error: ${r.error.message}`;
          const where = `step ${i} ${step.name}(${JSON.stringify(step.arguments)})`;
          expect(!r.ok, where).toBe(step.error);
          if (step.result !== undefined) expect(text, where).toBe(step.result);
          else expect(sha(text), `${where}: ${text.slice(0, 300)}`).toBe(step.result_sha256);
        });
        expect(env.hash()).toBe(expected.db_hash);
        expect(sha(env.dumpJsonSorted())).toBe(expected.db_dump_sha256);
      });
    }
  });
}
