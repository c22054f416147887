import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resultToString } from "../../../src/envs/tau2/index.js";
import { domain, hasData } from "./helpers.js";

/**
 * Reference produced by running upstream tau2-bench's telecom domain (Python) on the same data
 * with `fixtures/make-telecom-reference.py`: tool schemas, initial hashes, and per task the gold
 * actions replayed as upstream's evaluator does (`gold`: make_tool_call, no sync) and as they
 * happen in a conversation (`played`: each call then sync_tools), with the env assertions' outcomes.
 */
interface Replay {
  results_sha256: string[];
  errors: string[];
  hash: string;
  user_hash: string;
}
const ref = JSON.parse(
  readFileSync(new URL("./fixtures/telecom-reference.json", import.meta.url), "utf8"),
) as {
  initial_hash: string;
  user_hash: string;
  tools: unknown[];
  user_tools: unknown[];
  tasks: Record<
    string,
    { init_hash: string; init_user_hash: string; gold: Replay; played: Replay & { assertions: unknown[] } }
  >;
};
/** The 114 base tasks (the domain also holds the `small` split's tasks, from tasks_small.json). */
const base = () => {
  const d = domain("telecom");
  const ids = new Set(d.splits.base);
  return d.tasks.filter((t) => ids.has(t.id));
};
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

describe.skipIf(!hasData)("tau2 telecom port matches upstream", () => {
  it("exposes the same agent and user tool schemas and initial DB hashes", () => {
    const env = domain("telecom").createEnv();
    expect(env.tools()).toEqual(ref.tools);
    expect(env.userTools()).toEqual(ref.user_tools);
    expect(env.hash()).toBe(ref.initial_hash);
    expect(env.userHash()).toBe(ref.user_hash);
  });

  it("builds every task's initial state as upstream (initialization actions on both sides)", () => {
    const d = domain("telecom");
    expect(d.splits.base).toHaveLength(114);
    expect([...d.splits.base!].sort()).toEqual(Object.keys(ref.tasks).sort());
    for (const task of base()) {
      const env = d.createEnv(task);
      const expected = ref.tasks[task.id]!;
      expect({ id: task.id, hash: env.hash(), user: env.userHash() }).toEqual({
        id: task.id,
        hash: expected.init_hash,
        user: expected.init_user_hash,
      });
    }
  });

  for (const mode of ["gold", "played"] as const) {
    it(`replays every task's gold actions with both requestors (${mode}) to upstream's results and DBs`, () => {
      const d = domain("telecom");
      for (const task of base()) {
        const expected = ref.tasks[task.id]![mode];
        const env = d.createEnv(task);
        const results = (task.evaluation_criteria?.actions ?? []).map((a) =>
          resultToString(
            env.callSync({ name: a.name, arguments: a.arguments }, a.requestor, { sync: mode === "played" }),
          ),
        );
        expect({ id: task.id, errors: results.filter((r) => r.startsWith("Error: ")) }).toEqual({
          id: task.id,
          errors: expected.errors,
        });
        expect({ id: task.id, results: results.map(sha) }).toEqual({
          id: task.id,
          results: expected.results_sha256,
        });
        expect({ id: task.id, hash: env.hash(), user: env.userHash() }).toEqual({
          id: task.id,
          hash: expected.hash,
          user: expected.user_hash,
        });
        if (mode === "played") {
          const outcomes = (task.evaluation_criteria?.env_assertions ?? []).map((x) =>
            env.runEnvAssertion(x),
          );
          expect({ id: task.id, outcomes }).toEqual({
            id: task.id,
            outcomes: ref.tasks[task.id]!.played.assertions,
          });
        }
      }
    }, 120_000);
  }
});
