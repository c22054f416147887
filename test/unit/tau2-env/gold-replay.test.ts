import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { resultToString, type Tau2DomainName } from "../../../src/envs/tau2/index.js";
import { domain, hasData } from "./helpers.js";

/**
 * Reference produced by running upstream tau2-bench (Python) on the same data: tool schemas, the
 * initial DB hashes, and for every task the sha256 of each gold action's result string and the DB
 * hashes after replaying the gold actions.
 */
const ref = JSON.parse(
  readFileSync(new URL("./fixtures/upstream-reference.json", import.meta.url), "utf8"),
) as Record<
  string,
  {
    initial_hash: string;
    user_hash: string | null;
    tools: unknown[];
    user_tools: unknown[];
    tasks: Record<
      string,
      { results_sha256: string[]; errors: string[]; hash: string; user_hash: string | null }
    >;
  }
>;
const sha = (s: string) => createHash("sha256").update(s).digest("hex");

describe.skipIf(!hasData)("tau2 port matches upstream", () => {
  for (const name of ["mock", "retail", "airline"] as Tau2DomainName[]) {
    describe(name, () => {
      it("exposes the same tool schemas and initial DB hashes", () => {
        const env = domain(name).createEnv();
        expect(env.tools()).toEqual(ref[name]!.tools);
        expect(env.userTools()).toEqual(ref[name]!.user_tools);
        expect(env.hash()).toBe(ref[name]!.initial_hash);
        expect(env.userHash()).toBe(ref[name]!.user_hash);
      });

      it("replays every task's gold actions with upstream's results and final DB", () => {
        const d = domain(name);
        expect(d.tasks.length).toBe(Object.keys(ref[name]!.tasks).length);
        for (const task of d.tasks) {
          const expected = ref[name]!.tasks[task.id]!;
          const env = d.createEnv(task);
          const results = (task.evaluation_criteria?.actions ?? []).map((a) =>
            resultToString(env.callSync({ name: a.name, arguments: a.arguments }, a.requestor)),
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
        }
      }, 120_000);
    });
  }

  it("retail gold calls fail by design only where upstream's do", () => {
    const failing = Object.entries(ref.retail!.tasks).filter(([, t]) => t.errors.length > 0);
    expect(failing.length).toBeGreaterThan(5);
    expect(failing.flatMap(([, t]) => t.errors)).toContain(
      "Error: Insufficient gift card balance to pay for the price difference",
    );
  });
});
