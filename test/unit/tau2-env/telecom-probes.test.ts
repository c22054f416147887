import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resultToString, type Requestor } from "../../../src/envs/tau2/index.js";
import { domain, hasData } from "./helpers.js";

/**
 * Hand-written call sequences run through upstream's telecom (fixtures/make-telecom-reference.py):
 * error paths of agent and user tools, the payment and broken-VPN flows, and every env assertion
 * on hand-made states, passing and failing. Each step's exact string must match, then the DBs.
 */
type Step =
  | ["tool", Requestor, string, Record<string, unknown>]
  | ["fn", Requestor, string, Record<string, unknown>]
  | ["assert", Requestor, string, Record<string, unknown>, boolean];
interface Probe {
  task: string | null;
  steps: Step[];
  results: (string | boolean)[];
  hash: string;
  user_hash: string;
}
const probes = (
  JSON.parse(readFileSync(new URL("./fixtures/telecom-reference.json", import.meta.url), "utf8")) as {
    probes: Probe[];
  }
).probes;

describe.skipIf(!hasData)("telecom tools and env assertions on hand-made states match upstream", () => {
  it("covers every env assertion function with a met and an unmet outcome", () => {
    const outcomes = new Map<string, Set<unknown>>();
    for (const p of probes) {
      p.steps.forEach((s, i) => {
        if (s[0] !== "assert") return;
        const set = outcomes.get(s[2]) ?? new Set();
        set.add(p.results[i]);
        outcomes.set(s[2], set);
      });
    }
    for (const [name, seen] of outcomes) {
      if (name === "assert_overdue_bill_exists")
        expect(seen.has(true) && [...seen].some((x) => x !== true)).toBe(true);
      else expect({ name, both: seen.has(true) && seen.has(false) }).toEqual({ name, both: true });
    }
    expect(outcomes.size).toBe(13);
  });

  probes.forEach((probe, n) => {
    it(`probe ${n} (${probe.task ?? "fresh environment"}): every result and the final DBs`, () => {
      const d = domain("telecom");
      const task = probe.task === null ? undefined : d.tasks.find((t) => t.id === probe.task);
      const env = d.createEnv(task);
      const got = probe.steps.map((step): string | boolean => {
        if (step[0] === "tool")
          return resultToString(env.callSync({ name: step[2], arguments: step[3] }, step[1]));
        const r = env.runEnvFunction({ env_type: step[1], func_name: step[2], arguments: step[3] });
        if (!r.ok) return `Error: ${r.error.message}`;
        return step[0] === "fn" ? "ok" : r.value === step[4];
      });
      probe.steps.forEach((step, i) => {
        expect({ step: i, call: step[2], result: got[i] }).toEqual({
          step: i,
          call: step[2],
          result: probe.results[i],
        });
      });
      expect({ hash: env.hash(), user: env.userHash() }).toEqual({ hash: probe.hash, user: probe.user_hash });
    });
  });
});
